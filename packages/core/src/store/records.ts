import * as z from 'zod';
import { runStatusSchema, usageSchema, voiceModeSchema } from '../events/schema';

/** Version of the stored record shapes; readers accept every version listed in `records.test.ts` fixtures. */
export const RECORD_VERSION = 1;

const contentBlocks = z.array(z.looseObject({ type: z.string() }));

const base = {
  v: z.literal(1),
  seq: z.number().int().positive(),
  at: z.string(),
  run_id: z.string(),
};

/** One entry of a session's append-only log. */
export const logRecordSchema = z.discriminatedUnion('kind', [
  z.object({
    ...base,
    kind: z.literal('user_message'),
    text: z.string(),
    author: z.object({ id: z.string(), name: z.string().optional() }).optional(),
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
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionMeta = z.infer<typeof sessionMetaSchema>;
