import * as z from 'zod';
import { storedItem } from '../stored-item';

/** A work item's state, as the Managed Agents API names them. */
export const workStateSchema = z.enum(['queued', 'starting', 'active', 'stopping', 'stopped']);
export type WorkState = z.infer<typeof workStateSchema>;

/**
 * Why a work item stopped: its worker posted the call's result; its lease ran out (the call failed
 * with an error result, never run again); someone stopped it; or the run stopped waiting for it.
 */
export const workOutcomeSchema = z.enum(['result', 'lease_expired', 'stopped', 'not_waiting']);
export type WorkOutcome = z.infer<typeof workOutcomeSchema>;

/**
 * One environment tool call of a session in a self-hosted environment, queued for a worker:
 * `ENV#<environment>` / `WORK#<id>`. Its input is kept as JSON text, as the model wrote it.
 */
export const workItemSchema = z.object({
  id: z.string(),
  environment_id: z.string(),
  session_id: z.string(),
  run_id: z.string(),
  tool_use_id: z.string(),
  /** The toolset's name of the tool (`bash`, `read`, …). */
  tool: z.string(),
  input: z.string(),
  state: workStateSchema,
  created_at: z.string(),
  /** The last poll that handed it out and the worker that polled (`Anthropic-Worker-ID`), until it is acknowledged. */
  polled_at: z.string().nullable(),
  polled_by: z.string().nullable(),
  /** Polls that handed it out and heartbeats it had: conditional writes compare these counters. */
  polls: z.number().int().nonnegative(),
  beats: z.number().int().nonnegative(),
  acknowledged_at: z.string().nullable(),
  latest_heartbeat_at: z.string().nullable(),
  /** The lease: it runs out this long after the acknowledgement or the latest heartbeat. */
  ttl_seconds: z.number().int().positive(),
  stop_requested_at: z.string().nullable(),
  stopped_at: z.string().nullable(),
  outcome: workOutcomeSchema.nullable(),
  metadata: z.record(z.string(), z.string()),
});
export type WorkItem = z.infer<typeof workItemSchema>;

/** Versions: 1 (issue 29). */
export const workItem = storedItem<WorkItem>('work item', { 1: workItemSchema });
