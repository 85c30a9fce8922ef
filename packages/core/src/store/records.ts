import * as z from 'zod';
import { authorSchema, roleSchema, runStatusSchema, strategySchema, usageSchema, voiceModeSchema } from '../wire';

// Shapes the stored records share with the API.
export { authorSchema, roleSchema, type Author, type Role } from '../wire';

/** Version of the stored record shapes; readers accept every version listed in `records.test.ts` fixtures. */
export const RECORD_VERSION = 1;

const contentBlocks = z.array(z.looseObject({ type: z.string() }));

const base = {
  v: z.literal(1),
  seq: z.number().int().positive(),
  at: z.string(),
  run_id: z.string(),
  /** Set on every record of a child run (a delegated task): the run that delegated it. Such records are not part of the parent's conversation. */
  parent_run_id: z.string().optional(),
};

/** One entry of a session's append-only log. */
export const logRecordSchema = z.discriminatedUnion('kind', [
  z.object({
    ...base,
    kind: z.literal('user_message'),
    /** The inbox position the message came from; makes moving it into the log idempotent. */
    message_id: z.number().int().optional(),
    text: z.string(),
    author: authorSchema.optional(),
    agent_id: z.string(),
    model: z.string(),
    voice_mode: voiceModeSchema,
  }),
  z.object({ ...base, kind: z.literal('assistant'), step: z.number().int(), agent_id: z.string(), content: contentBlocks, usage: usageSchema }),
  z.object({
    ...base,
    kind: z.literal('tool_results'),
    step: z.number().int(),
    results: z.array(
      z.object({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.string(), is_error: z.boolean().optional() }),
    ),
  }),
  z.object({
    ...base,
    kind: z.literal('run_end'),
    status: runStatusSchema,
    steps: z.number().int(),
    usage: usageSchema,
    reason: z.string().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  /** One tool call's result, written as soon as the call completes (keyed by run id and tool call id). */
  z.object({
    ...base,
    kind: z.literal('tool_result'),
    step: z.number().int(),
    tool_use_id: z.string(),
    name: z.string(),
    content: z.string(),
    is_error: z.boolean().optional(),
  }),
  /** The run stopped near its time budget and continues elsewhere (the worker); it is not over. */
  z.object({ ...base, kind: z.literal('run_handover'), steps: z.number().int(), usage: usageSchema, reason: z.string() }),
  /** A log position a run reserved but never wrote, sealed by the run that took its lease over. */
  z.object({ ...base, kind: z.literal('void') }),
]);
export type LogRecord = z.infer<typeof logRecordSchema>;
export type LogRecordKind = LogRecord['kind'];
/** A record before the store gives it its place in the log. */
export type NewLogRecord = LogRecord extends infer R ? (R extends LogRecord ? Omit<R, 'v' | 'seq' | 'at'> : never) : never;

/** A session's metadata item. */
export const sessionMetaSchema = z.object({
  v: z.literal(1),
  session_id: z.string(),
  title: z.string(),
  agent_id: z.string(),
  project_id: z.string().optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
  created_by: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionMeta = z.infer<typeof sessionMetaSchema>;

export const memberSchema = z.object({
  user_id: z.string(),
  name: z.string().optional(),
  role: roleSchema,
  added_at: z.string(),
});
export type Member = z.infer<typeof memberSchema>;

/** A message accepted for a session but not yet answered. */
export const inboxMessageSchema = z.object({
  message_id: z.number().int().positive(),
  run_id: z.string(),
  text: z.string(),
  author: authorSchema.optional(),
  agent_id: z.string().optional(),
  project_id: z.string().optional(),
  voice_mode: voiceModeSchema.optional(),
  model: z.string().optional(),
  at: z.string(),
});
export type InboxMessage = z.infer<typeof inboxMessageSchema>;

/** A file a tool wrote for a session (a report or an artifact), kept beside the session's log. */
export const sessionArtifactSchema = z.object({
  v: z.literal(1),
  key: z.string(),
  /** The path as the tool was given it, e.g. "reports/summary.md". */
  path: z.string(),
  project_id: z.string().optional(),
  bytes: z.number().int().nonnegative(),
  run_id: z.string(),
  tool_call_id: z.string(),
  at: z.string(),
});
export type SessionArtifact = z.infer<typeof sessionArtifactSchema>;
