import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `LEASE`: the right to run the session, and the counters of the positions handed out in its logs. */
export const runLeaseKey = (sessionId: string) => ({ pk: keys.session(sessionId), sk: keys.lease });

/** Set on the lease item to stop the active run at its next safe point. */
export const stopRequestSchema = z.object({ run_id: z.string(), reason: z.enum(['cancelled', 'interrupted']) });
export type StopRequest = z.infer<typeof stopRequestSchema>;

/**
 * The lease item. Written only by updates, so every field may be missing
 * until the first acquire; a released lease keeps its counters and token
 * with `lease_until` 0.
 */
export const runLeaseSchema = z.object({
  holder: z.string().optional(),
  run_id: z.string().optional(),
  /** Epoch ms. */
  lease_until: z.number().optional(),
  /** Fencing token: incremented by each acquire. */
  token: z.number().int().optional(),
  next_log: z.number().int().optional(),
  next_event: z.number().int().optional(),
  stop_request: stopRequestSchema.optional(),
});
export type RunLeaseItem = z.infer<typeof runLeaseSchema>;

/** Versions: 0, written without `v` (before issue 13); 1, the same fields with `v: 1` (set by each acquire). */
export const runLeaseItem = storedItem<RunLeaseItem>('run lease', { 0: runLeaseSchema, 1: runLeaseSchema });
