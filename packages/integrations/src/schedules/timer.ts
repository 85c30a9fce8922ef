import { log, errorText } from '@zero/agent/log/log';
import { finishFires, fireDueSchedules } from './due';
import type { FireOutcome, ScheduleDeps } from './fire';

/** What the timer reads the time from and waits with; tests pass a clock they move by hand. */
export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; returns how to cancel it. */
  setTimeout(fn: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

export interface ScheduleTimerOptions {
  clock?: Clock;
  /** How often the schedules are read again (a schedule added on another instance); one minute by default. */
  pollMs?: number;
  /** How far back the sweep at each tick looks for starts a dead process left unfinished; one day by default. */
  sweepBackMs?: number;
  /** Told of each fire, for logs and tests. */
  onFire?: (id: string, scheduledAt: Date, outcome: FireOutcome) => void;
}

/**
 * The local stand-in for EventBridge Scheduler: one process reads the
 * schedules, waits until the earliest next time (croner computes it in the
 * schedule's time zone) and fires every schedule due then; each tick
 * first finishes the starts a dead process left half done (`finishFires`).
 * A time missed while the process was down is not made up; two processes firing the same
 * time start one run (`fireSchedule`'s marker).
 */
export class ScheduleTimer {
  private readonly clock: Clock;
  private readonly pollMs: number;
  private cancel?: () => void;
  private stopped = false;
  /** The time from which the next times are computed: the last time handled, so none is skipped or handled twice. */
  private since: number;
  private ticking?: Promise<void>;

  constructor(
    private readonly deps: ScheduleDeps,
    private readonly options: ScheduleTimerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollMs ?? 60_000;
    this.since = this.clock.now();
  }

  start(): this {
    this.arm(0);
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** Resolves when the tick in progress (if any) is done; for tests that move the clock. */
  async idle(): Promise<void> {
    while (this.ticking) await this.ticking;
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.cancel?.();
    this.cancel = this.clock.setTimeout(() => {
      this.ticking = this.tick().finally(() => (this.ticking = undefined));
    }, Math.max(0, ms));
  }

  /** Fires what is due between the last tick and now, then waits for the next due time (or the next poll). */
  private async tick(): Promise<void> {
    const now = this.clock.now();
    let wait = this.pollMs;
    try {
      // Starts a dead process left half done (a marker, no session) are finished first: they are older.
      await finishFires(this.deps, new Date(now - (this.options.sweepBackMs ?? 24 * 3600_000)), now, this.options.onFire);
      const { next } = await fireDueSchedules(this.deps, new Date(this.since), new Date(now), this.options.onFire);
      if (next) wait = Math.min(wait, next.getTime() - now);
    } catch (error) {
      log.error('the schedule timer failed', { error: errorText(error) });
    }
    this.since = now;
    this.arm(wait);
  }
}
