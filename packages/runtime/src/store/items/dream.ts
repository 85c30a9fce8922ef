import * as z from 'zod';
import { storedItem } from '../stored-item';

/** A dream's status, as the Managed Agents API names them; `completed`, `failed` and `canceled` are final. */
export const dreamStatusSchema = z.enum(['pending', 'running', 'completed', 'failed', 'canceled']);
export type DreamStatus = z.infer<typeof dreamStatusSchema>;

/** The statuses a dream never leaves. */
export const FINAL_DREAM_STATUSES: readonly DreamStatus[] = ['completed', 'failed', 'canceled'];

const tokensSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
});

/**
 * A dream (`USER#<owner>` / `DREAM#<id>`): a background consolidation of one of its owner's memory
 * stores, run by the worker. Every status change is one conditional write on `status`, so of a
 * cancel and the worker's completion exactly one wins.
 */
export const dreamSchema = z.object({
  id: z.string(),
  owner: z.string(),
  status: dreamStatusSchema,
  /** The memory store read (`memstore_…`). */
  memory_store_id: z.string(),
  /** The sessions whose transcripts are read, sorted, without duplicates (empty: none). */
  session_ids: z.array(z.string()),
  model: z.string(),
  instructions: z.string().nullable(),
  output_behavior: z.enum(['create_new', 'update_existing']),
  /** The store the result is written to, once the dream has recorded it. */
  output_store_id: z.string().nullable(),
  created_at: z.string(),
  /** When the worker last claimed it (`running`); a claim older than the stale time may be taken over. */
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  archived_at: z.string().nullable(),
  error: z.object({ type: z.string(), message: z.string() }).nullable(),
  usage: tokensSchema,
  /** What the dream's model calls cost, in US dollars (Zero's own: the API's usage has tokens only). */
  cost_usd: z.number().nonnegative(),
});
export type Dream = z.infer<typeof dreamSchema>;

/** Versions: 1 (issue 34). */
export const dreamItem = storedItem<Dream>('dream', { 1: dreamSchema });
