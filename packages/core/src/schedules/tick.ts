/**
 * On AWS, an EventBridge rule sends the run queue a tick every minute:
 * `{"schedules_tick":"<the event's time>"}` (see sst.config.ts). The worker fires
 * the schedules due in the minutes before it; looking back further than a
 * minute covers a tick that came late or was lost, and the fire markers
 * make the overlap start nothing twice.
 */
export const SCHEDULE_TICK_LOOKBACK_MS = 3 * 60_000;

/** The tick's scheduled time, or undefined when the body is not a tick (a run job). */
export function scheduleTickTime(body: string): Date | undefined {
  if (!body.includes('"schedules_tick"')) return undefined;
  try {
    const value = (JSON.parse(body) as { schedules_tick?: unknown }).schedules_tick;
    const at = typeof value === 'string' ? new Date(value) : undefined;
    return at && !Number.isNaN(at.getTime()) ? at : undefined;
  } catch {
    return undefined;
  }
}
