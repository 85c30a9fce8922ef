import { Cron } from 'croner';
import { invalidField } from '@zero/agent/errors';

/** Parses a schedule's cron expression in its time zone with croner; a bad one is a 400 naming `cron`. */
export function parseCron(cron: string, timezone: string): Cron {
  try {
    // Paused: the Cron object only computes times here, it never runs anything.
    return new Cron(cron, { timezone, paused: true, mode: '5-part' });
  } catch (error) {
    throw invalidField('cron', (error as Error).message);
  }
}

/** The next `count` times after `from`, as croner computes them in the time zone (DST included). */
export function nextRuns(cron: string, timezone: string, from: Date, count = 5): Date[] {
  return parseCron(cron, timezone).nextRuns(count, from);
}
