import * as z from 'zod';
import { storedItem } from '../stored-item';

const count = z.number().int().nonnegative().optional();

/**
 * What a scope (a session, a user's day, the deployment's day) has spent, in
 * integer micro-dollars and tokens, kept by atomic `ADD`s (one per step), and
 * its limit when one was set on the item itself (a session's budget, or an
 * administrator's raise for the day). Every counter is absent until first added to.
 * Reservations of calls in flight are `hold:<id>` attributes beside them (see `SpendStore`).
 */
export const spendCounterSchema = z.object({
  cost_micros: count,
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  /** Model calls counted (steps and compaction calls). */
  calls: count,
  /** What the reservations of model calls in flight hold (each a `hold:<id>` attribute, see `SpendStore.reserve`). */
  held_micros: z.number().int().optional(),
  /**
   * Spent plus held, the one figure a reservation's condition compares with the limit (a condition cannot add).
   * Items older than reservations lack it for what they had spent then: `cost + held - committed` is a constant
   * of each item (every write keeps it), which the reader subtracts from the limit (see `committedOf`).
   */
  committed_micros: z.number().int().optional(),
  limit_micros: z.number().int().nonnegative().optional(),
  /**
   * A day counter's: how much of its day's usage cells' uncounted spend (runs that found no limit on it add
   * to their cell only) it has taken in, by catching up as a limit came to apply to it (see `Budgets`).
   * Absent: never caught up.
   */
  from_usage_micros: z.number().int().nonnegative().optional(),
  /** Who set the limit, and when. */
  limit_set_by: z.string().optional(),
  limit_set_at: z.string().optional(),
});
export type SpendCounter = z.infer<typeof spendCounterSchema>;

/** Version 1: the first. */
export const spendCounterItem = storedItem<SpendCounter>('spend counter', { 1: spendCounterSchema });
