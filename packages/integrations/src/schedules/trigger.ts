import * as z from 'zod';
import { describeZodError } from '@zero/agent/errors';
import { scheduleIdSchema } from '@zero/agent/wire';
import type { ScheduleConfig } from './schedule-config';

/**
 * What makes schedules fire outside the process: EventBridge Scheduler on
 * AWS (`EventBridgeScheduleTrigger`). Locally there is none: the in-process
 * timer reads the schedules from the bucket.
 */
export interface ScheduleTrigger {
  /** Registers the schedule as it now is: its cron, time zone and paused state. */
  sync(schedule: ScheduleConfig): Promise<void>;
  /** Takes the schedule's registration down; one that is already gone is fine. */
  remove(id: string): Promise<void>;
}

/** The run-queue message EventBridge Scheduler sends when a schedule fires. */
const scheduleFireSchema = z.object({
  schedule_fire: z.object({ id: scheduleIdSchema, at: z.iso.datetime({ offset: true }) }),
});

/** A firing read from a queue message: the schedule and its scheduled time, or what makes it unreadable. */
export type ScheduleFire = { id: string; at: Date } | { unreadable: string };

/** The firing a message body carries, or undefined when the body is another job. */
export function scheduleFireOf(body: string): ScheduleFire | undefined {
  if (!body.includes('"schedule_fire"')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { unreadable: (error as Error).message };
  }
  if (!value || typeof value !== 'object' || !('schedule_fire' in value)) return undefined;
  const parsed = scheduleFireSchema.safeParse(value);
  if (!parsed.success) return { unreadable: describeZodError(parsed.error).message };
  return { id: parsed.data.schedule_fire.id, at: new Date(parsed.data.schedule_fire.at) };
}
