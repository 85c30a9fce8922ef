import * as z from 'zod';
import { scheduleIdSchema, scheduleInputSchema } from '../wire';
import { notFound } from '../errors';
import type { ArtifactStore } from '../store/artifact-store';
import { log } from '../log';

/** A schedule as stored in the bucket, `schedules/<id>.json`: the administrator's input and its own state. */
export const scheduleConfigSchema = scheduleInputSchema.extend({
  v: z.literal(1),
  id: scheduleIdSchema,
  /** Why the schedule paused itself; absent when an administrator paused it (or it runs). */
  paused_reason: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScheduleConfig = z.infer<typeof scheduleConfigSchema>;

const PREFIX = 'schedules/';
const keyOf = (id: string) => `${PREFIX}${scheduleIdSchema.parse(id)}.json`;

/** Schedules in the bucket, one object per schedule, kept like webhooks' configurations. */
export class ScheduleStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  async get(id: string): Promise<ScheduleConfig | undefined> {
    if (!scheduleIdSchema.safeParse(id).success) return undefined;
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
