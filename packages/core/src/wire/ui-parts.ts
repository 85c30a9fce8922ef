import * as z from 'zod';
import { authorSchema, doneStatusSchema, usageSchema } from './fields';

/**
 * What Zero puts on a message of the AI SDK's UI message stream (`POST /ui/chat`):
 * `{session_id, run_id, agent_id}` at the start and `{status, usage}` at the end;
 * on a user message rebuilt from the history, its author and whether it still waits its turn.
 */
export const uiMessageMetadataSchema = z.object({
  author: authorSchema.optional(),
  queued: z.boolean().optional(),
  session_id: z.string().optional(),
  run_id: z.string().optional(),
  agent_id: z.string().optional(),
  status: doneStatusSchema.optional(),
  usage: usageSchema.optional(),
  /** A failed run's error, as its `run_end` recorded it. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type UIMessageMetadata = z.infer<typeof uiMessageMetadataSchema>;

/**
 * Zero's data parts of the UI message stream, by name (the stream's part type is `data-<name>`),
 * in the form `useChat({ dataPartSchemas })` takes.
 */
export const uiDataPartSchemas = {
  'agent-switch': z.object({ from: z.string().nullable(), to: z.string() }),
  'confirmation-required': z.object({ id: z.string(), name: z.string(), input: z.unknown() }),
  /** The step's text so far was discarded and is being redone. */
  retry: z.object({ step: z.number().int(), attempt: z.number().int(), reason: z.string(), provider: z.string().optional() }),
  /** The run neared the invocation's time limit and goes on in the background (resume to follow it). */
  handover: z.object({ session_id: z.string(), run_id: z.string(), reason: z.string() }),
  usage: z.object({ status: doneStatusSchema, steps: z.number().int(), usage: usageSchema, reason: z.string().optional() }),
  /** The conversation was compacted before the next model call (its oldest turns folded into a summary). */
  compacted: z.object({ tokens_before: z.number().int(), tokens_after: z.number().int(), turns_folded: z.number().int() }),
};
export type UIDataTypes = { [K in keyof typeof uiDataPartSchemas]: z.infer<(typeof uiDataPartSchemas)[K]> };

const dataPart = <N extends keyof typeof uiDataPartSchemas>(name: N) => z.object({ type: z.literal(`data-${name}`), data: uiDataPartSchemas[name] });

/**
 * One `data:` line of the UI message stream: one of Zero's data parts, or one
 * of the AI SDK's own chunks (`start`, `text-delta`, `tool-input-available`,
 * `finish`, …, as its UI message stream protocol defines them). The stream
 * ends with `data: [DONE]`.
 */
export const uiMessageChunkSchema = z.union([
  dataPart('agent-switch'),
  dataPart('confirmation-required'),
  dataPart('retry'),
  dataPart('handover'),
  dataPart('usage'),
  dataPart('compacted'),
  z.looseObject({ type: z.string() }),
]);
