import * as z from 'zod';
import { storedItem } from '../stored-item';

/**
 * `RUNS` / `RUN#<id>`: a run active now, written when it starts (or is carried
 * on) and deleted when it ends, with its session's spend counter as it was then:
 * what the run has cost so far is what the session's counter has gained since
 * (a session runs one run at a time), so nothing is written here per step. One
 * that outlives `expires_at` (epoch seconds, so the table's TTL deletes it then)
 * died with its process. Items written before carry `cost_micros`/`calls` `ADD`ed each step.
 */
export const activeRunSchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  user_id: z.string(),
  agent_id: z.string(),
  instance: z.string(),
  started_at: z.string(),
  expires_at: z.number().int(),
  cost_micros: z.number().int().nonnegative().optional(),
  calls: z.number().int().nonnegative().optional(),
  /** The session's spend counter when the run started here: its cost (micro-dollars) and model calls. */
  session_cost_before_micros: z.number().int().nonnegative().optional(),
  session_calls_before: z.number().int().nonnegative().optional(),
});
export type ActiveRunItem = z.infer<typeof activeRunSchema>;
export const activeRunItem = storedItem<ActiveRunItem>('active run', { 1: activeRunSchema });

/** `AUDIT` / `<at>#<id>`: what an administrator did, to what, and when. */
export const auditRecordSchema = z.object({
  action: z.enum(['cancel_run', 'suspend_user', 'resume_user']),
  by: z.string(),
  at: z.string(),
  target: z.string(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;
export const auditRecordItem = storedItem<AuditRecord>('audit record', { 1: auditRecordSchema });

/** `USER#<id>` / `SUSPENDED`: the user's requests are refused until an administrator resumes them. */
export const suspensionSchema = z.object({ by: z.string(), at: z.string(), reason: z.string().optional() });
export type Suspension = z.infer<typeof suspensionSchema>;
export const suspensionItem = storedItem<Suspension>('user suspension', { 1: suspensionSchema });
