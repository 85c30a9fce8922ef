import * as z from 'zod';
import { scheduleInputSchema } from '@zero/agent/wire';
import { notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { log } from '@zero/agent/log/log';

/**
 * A schedule's id as the bucket may hold it: new ones are at most 62 characters (`scheduleIdSchema`),
 * earlier versions took 63, and such a schedule still reads, runs and deletes.
 */
const storedScheduleIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/);

/**
 * A schedule as stored in the bucket, `schedules/<id>.json`: the administrator's input and its own
 * state. Not strict, unlike the input: a field an earlier version kept (`failures`, now a counter in
 * the table) is dropped when read, not a reason to lose the schedule.
 */
export const scheduleConfigSchema = z.object({
  ...scheduleInputSchema.shape,
  v: z.literal(1),
  id: storedScheduleIdSchema,
  /** Why the schedule paused itself; absent when an administrator paused it (or it runs). */
  paused_reason: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScheduleConfig = z.infer<typeof scheduleConfigSchema>;

const PREFIX = 'schedules/';
const keyOf = (id: string) => `${PREFIX}${storedScheduleIdSchema.parse(id)}.json`;

/** Schedules in the bucket, one object per schedule, kept like webhooks' configurations. */
export class ScheduleStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  async get(id: string): Promise<ScheduleConfig | undefined> {
    if (!storedScheduleIdSchema.safeParse(id).success) return undefined;
    const value = await this.artifacts.getJson(keyOf(id));
    if (value === undefined) return undefined;
    const parsed = scheduleConfigSchema.safeParse(value);
    if (!parsed.success) {
      log.error('unreadable schedule', { schedule_id: id, error: parsed.error.message });
      return undefined;
    }
    return parsed.data;
  }

  async require(id: string): Promise<ScheduleConfig> {
    const schedule = await this.get(id);
    if (!schedule) throw notFound(`no schedule "${id}"`, 'schedule_id');
    return schedule;
  }

  /** Creates or replaces a schedule (its failure count, in the table, is cleared by the caller). */
  async put(id: string, input: z.output<typeof scheduleInputSchema>): Promise<{ schedule: ScheduleConfig; created: boolean }> {
    const existing = await this.get(id);
    const now = new Date().toISOString();
    const schedule: ScheduleConfig = { v: 1, id, ...input, created_at: existing?.created_at ?? now, updated_at: now };
    await this.artifacts.putJson(keyOf(id), schedule);
    return { schedule, created: !existing };
  }

  /** Writes the schedule's own state (a pause) back. */
  async save(schedule: ScheduleConfig): Promise<void> {
    await this.artifacts.putJson(keyOf(schedule.id), { ...schedule, updated_at: new Date().toISOString() });
  }

  async list(): Promise<ScheduleConfig[]> {
    const objects = await this.artifacts.list(PREFIX);
    const schedules = await Promise.all(objects.map((o) => this.get(o.key.slice(PREFIX.length).replace(/\.json$/, ''))));
    return schedules.filter((s) => s !== undefined);
  }

  async delete(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false;
    await this.artifacts.deletePrefix(keyOf(id));
    return true;
  }
}
