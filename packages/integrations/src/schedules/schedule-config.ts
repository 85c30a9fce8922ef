import * as z from 'zod';
import { scheduleInputSchema } from '@zero/agent/wire';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { JsonCollection } from '@zero/runtime/store/json-collection';

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
  /** The Managed Agents API deployment this schedule fires (`client.beta.deployments`); absent on an administrator's schedule. */
  deployment_id: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScheduleConfig = z.infer<typeof scheduleConfigSchema>;

/** Schedules in the bucket, one object per schedule (`schedules/<id>.json`), kept like webhooks' configurations. */
export class ScheduleStore {
  private readonly schedules: JsonCollection<ScheduleConfig>;

  constructor(artifacts: ArtifactStore) {
    this.schedules = new JsonCollection(artifacts, { prefix: 'schedules/', id: storedScheduleIdSchema, item: scheduleConfigSchema, noun: 'schedule', field: 'schedule_id' });
  }

  get(id: string): Promise<ScheduleConfig | undefined> {
    return this.schedules.get(id);
  }

  require(id: string): Promise<ScheduleConfig> {
    return this.schedules.require(id);
  }

  /** Creates or replaces a schedule (its failure count, in the table, is cleared by the caller); a deployment's also names it and may keep its own pause. */
  async put(id: string, input: z.output<typeof scheduleInputSchema> & Pick<ScheduleConfig, 'deployment_id' | 'paused_reason'>): Promise<{ schedule: ScheduleConfig; created: boolean }> {
    const { item, created } = await this.schedules.put(id, (stamps) => ({ v: 1, id, ...input, ...stamps }));
    return { schedule: item, created };
  }

  /** Writes the schedule's own state (a pause) back. */
  save(schedule: ScheduleConfig): Promise<void> {
    return this.schedules.save(schedule.id, schedule);
  }

  list(): Promise<ScheduleConfig[]> {
    return this.schedules.list();
  }

  delete(id: string): Promise<boolean> {
    return this.schedules.delete(id);
  }
}
