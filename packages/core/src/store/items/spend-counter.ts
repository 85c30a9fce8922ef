import * as z from 'zod';
import { storedItem } from '../stored-item';

const count = z.number().int().nonnegative().optional();

/**
 * What a scope (a session, a user's day, the deployment's day) has spent, in
 * integer micro-dollars and tokens, kept by atomic `ADD`s (one per step), and
 * its limit when one was set on the item itself (a session's budget, or an
 * administrator's raise for the day). Every counter is absent until first added to.
 */
export const spendCounterSchema = z.object({
  cost_micros: count,
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  /** Model calls counted (steps and compaction calls). */
  calls: count,
  limit_micros: z.number().int().nonnegative().optional(),
  /** Who set the limit, and when. */
  limit_set_by: z.string().optional(),
  limit_set_at: z.string().optional(),
});
export type SpendCounter = z.infer<typeof spendCounterSchema>;

/** Version 1: the first. */
export const spendCounterItem = storedItem<SpendCounter>('spend counter', { 1: spendCounterSchema });
