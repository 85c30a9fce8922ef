import * as z from 'zod';

/** A run active now, as `GET /api/v2/admin/runs` lists it. */
export const activeRunSchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  user_id: z.string(),
  agent_id: z.string(),
  started_at: z.string(),
  /** Model calls so far (steps, its delegates' and compaction calls included). */
  steps: z.number().int(),
  cost_usd: z.number(),
  /** The server instance that runs it (a handover moves it). */
  instance: z.string(),
});
export const activeRunsResponseSchema = z.object({ runs: z.array(activeRunSchema) });

/** An administrator's action, as the audit log keeps it. */
export const auditRecordSchema = z.object({
  action: z.enum(['cancel_run', 'suspend_user', 'resume_user']),
  by: z.string(),
  at: z.string(),
  target: z.string(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export const auditLogResponseSchema = z.object({ records: z.array(auditRecordSchema) });
export const adminActionResponseSchema = z.object({ audit: auditRecordSchema, stopped_runs: z.array(z.string()) });

/** The body of `POST /api/v2/admin/users/:id/suspend`. */
export const suspendRequestSchema = z.strictObject({ reason: z.string().max(500).optional() });
