import { nextRuns } from './cron';
import { finishFire, fireSchedule, type FireOutcome, type ScheduleDeps } from './fire';

/** The most times one schedule fires for one window (a window is normally a minute or a timer's wait). */
const MAX_TIMES_PER_WINDOW = 5;

/**
 * Fires every schedule that is due in the window (from, to]: the times
 * croner computes in each schedule's time zone. Windows may overlap (a tick
 * that looks back further than the last one): a time fired before is a
 * duplicate and starts nothing. Returns the time it found due on the way.
 */
export async function fireDueSchedules(deps: ScheduleDeps, from: Date, to: Date, onFire?: (id: string, at: Date, outcome: FireOutcome) => void): Promise<{ next?: Date }> {
  let next: Date | undefined;
  const schedules = (await deps.schedules.store.list()).filter((s) => !s.paused);
  for (const schedule of schedules) {
    for (const at of nextRuns(schedule.cron, schedule.timezone, from, MAX_TIMES_PER_WINDOW)) {
      if (at > to) {
        if (!next || at < next) next = at;
        break;
      }
      // Fired first, told after: `onFire?.(…, await fireSchedule(…))` would skip the fire when no one listens.
      const outcome = await fireSchedule(deps, schedule.id, at);
      onFire?.(schedule.id, at, outcome);
    }
  }
  return { next };
}

/**
 * The sweep of fire markers: every marker of a schedule that is not paused,
 * for a time since `from`, whose start never finished (its process died
 * between the marker and the session's message) is finished now, with the
 * marker's session and run (markers written before the ids were derived
 * keep theirs). Times without a marker are not made up. Does not throw.
 */
export async function finishFires(deps: ScheduleDeps, from: Date, now = Date.now(), onFire?: (id: string, at: Date, outcome: FireOutcome) => void): Promise<void> {
  const schedules = (await deps.schedules.store.list()).filter((s) => !s.paused);
  for (const schedule of schedules) {
    for (const marker of await deps.schedules.markers.since(schedule.id, from.toISOString())) {
      if (marker.outcome) continue;
      const outcome = await finishFire(deps, schedule, marker.scheduled_at, now);
      if (outcome.status !== 'duplicate') onFire?.(schedule.id, new Date(marker.scheduled_at), outcome);
    }
  }
}
