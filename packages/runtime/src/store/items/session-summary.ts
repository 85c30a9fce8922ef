import * as z from 'zod';
import { githubInvestigationSchema, pendingApprovalSchema, runStatusSchema, usageSchema } from '@zero/agent/wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `SUMMARY`. */
export const sessionSummaryKey = (sessionId: string) => ({ pk: keys.session(sessionId), sk: keys.summary });

/** What became of a webhook-started investigation: readable at `GET /api/v2/sessions/:id/summary`. */
export const sessionSummarySchema = z.object({
  v: z.literal(1),
  session_id: z.string(),
  /** The run that answers the delivery. */
  run_id: z.string(),
  origin: z.object({
    hook_id: z.string(),
    source: z.enum(['github', 'generic']),
    event: z.string(),
    delivery_id: z.string(),
    received_at: z.string(),
  }),
  /** `accepted` until the run ends, then the run's status; `awaiting_approval` while it waits for people on `pending`. */
  status: z.union([z.literal('accepted'), z.literal('awaiting_approval'), runStatusSchema]),
  /** The calls the run waits on while `awaiting_approval` (empty once they are decided). */
  pending: z.array(pendingApprovalSchema).optional(),
  project_id: z.string().optional(),
  /** Gaps in the prompt template and other things the hook's owner should fix. */
  warnings: z.array(z.string()),
  report: z.object({ key: z.string(), path: z.string(), project_id: z.string().optional(), bytes: z.number().int() }).optional(),
  /** The report rendered as a PDF, when the hook asks for `report_formats: ["md", "pdf"]`. */
  pdf_report: z.object({ key: z.string(), path: z.string(), project_id: z.string().optional(), bytes: z.number().int(), pages: z.number().int() }).optional(),
  steps: z.number().int().optional(),
  usage: usageSchema.optional(),
  reason: z.string().optional(),
  finished_at: z.string().optional(),
  callback: z
    .object({
      /** Scheme and host only: a callback URL's path and query may carry a token. */
      target: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      last_status: z.number().int().optional(),
      last_error: z.string().optional(),
      at: z.string().optional(),
    })
    .optional(),
  /** Investigations of GitHub hooks that hydrate or report: the repository, pull request and commit, and how each step went. */
  github: githubInvestigationSchema.optional(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** Versions: 1 (every item so far). */
export const sessionSummaryItem = storedItem<SessionSummary>('session summary', { 1: sessionSummarySchema });
