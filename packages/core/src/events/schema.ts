import * as z from 'zod';
import { projectIdSchema } from '../project-id';

/** Limits on what a client may send, documented in the README. */
export const MAX_MESSAGE_CHARS = 100_000;
export const MAX_BODY_BYTES = 1_048_576;

export const voiceModeSchema = z.enum(['full', 'minimal', 'neutral']);

/** What a message that arrives during a run does: wait its turn, be refused, or stop the run. */
export const strategySchema = z.enum(['enqueue', 'reject', 'interrupt']);
export type Strategy = z.infer<typeof strategySchema>;
export type VoiceMode = z.infer<typeof voiceModeSchema>;

const idSchema = z.string().min(1).max(128).regex(/^[A-Za-z0-9._:-]+$/, 'must contain only letters, digits, ".", "_", ":" or "-"');
/** A session id: a client's chat id, a UUID; part of DynamoDB keys, so bounded. */
export const sessionIdSchema = idSchema;
/** A user id: from an API key, a JWT's `sub`, or a membership; part of DynamoDB keys, so no spaces or "#". */
export const userIdSchema = z.string().min(1).max(200).regex(/^[^\s#]+$/, 'must not contain spaces or "#"');

/** The body of `POST /api/v2/chat`. */
export const chatRequestSchema = z.strictObject({
  session_id: idSchema.optional(),
  agent_id: idSchema.optional(),
  project_id: projectIdSchema.optional(),
  // The size limit is checked separately so that it can answer 413 rather than 400.
  message: z.string().trim().min(1, 'must not be empty'),
  voice_mode: voiceModeSchema.optional(),
  model: z.string().min(1).max(100).optional(),
  stream: z.boolean().optional(),
  strategy: strategySchema.optional(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

export const usageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

export const runStatusSchema = z.enum(['completed', 'limit', 'error', 'cancelled']);
export type RunStatus = z.infer<typeof runStatusSchema>;

/**
 * Fields that tag an event with the agent and run that produced it. A child run
 * (an agent working on a delegated task) also names the run that delegated to it.
 */
const origin = { agent_id: z.string().optional(), run_id: z.string().optional(), parent_run_id: z.string().optional() };

/** Why the active agent changed: a session switched agents, a run delegated a task, or a delegate handed back. */
export const agentSwitchReasonSchema = z.enum(['switch', 'delegate', 'return']);
export type AgentSwitchReason = z.infer<typeof agentSwitchReasonSchema>;

/** Every event Zero streams, one JSON object per SSE `data:` line. */
export const streamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    session_id: z.string(),
    run_id: z.string(),
    agent_id: z.string(),
    /** Set when an unfinished run is carried on (after a crash or a handover). */
    resumed: z.boolean().optional(),
  }),
  /** The run stopped near its time limit and continues in the background: follow the session's events from this event's id. */
  z.object({ type: z.literal('handover'), session_id: z.string(), run_id: z.string(), reason: z.string() }),
  z.object({
    type: z.literal('message'),
    message_id: z.number().int(),
    text: z.string(),
    author: z.object({ id: z.string(), name: z.string().optional() }).optional(),
    run_id: z.string(),
  }),
  z.object({ type: z.literal('text'), delta: z.string(), ...origin }),
  /**
   * A piece of a tool call's input JSON as the model writes it, so a long input (a file being written)
   * shows while it is written; the `tool_call` with the whole input follows. Several pieces that
   * arrive close together come as one event.
   */
  z.object({ type: z.literal('tool_call_delta'), id: z.string(), name: z.string(), delta: z.string(), ...origin }),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), input: z.unknown(), ...origin }),
  z.object({
    type: z.literal('tool_result'),
    id: z.string(),
    name: z.string(),
    content: z.string(),
    is_error: z.boolean(),
    truncated: z.boolean().optional(),
    ...origin,
  }),
  z.object({
    type: z.literal('retry'),
    step: z.number().int(),
    attempt: z.number().int(),
    reason: z.string(),
    ...origin,
  }),
  z.object({
    type: z.literal('agent_switch'),
    from: z.string().nullable(),
    to: z.string(),
    reason: agentSwitchReasonSchema.optional(),
    /** For a delegation: the caller's `delegate_agent` call this child run answers. */
    tool_call_id: z.string().optional(),
    /** On `return`: how the child run ended and what it spent (already included in the parent's `done`). */
    status: runStatusSchema.optional(),
    steps: z.number().int().optional(),
    usage: usageSchema.optional(),
    ...origin,
  }),
  z.object({ type: z.literal('confirmation_required'), id: z.string(), name: z.string(), input: z.unknown(), ...origin }),
  z.object({
    type: z.literal('done'),
    run_id: z.string(),
    status: runStatusSchema,
    steps: z.number().int(),
    usage: usageSchema,
    reason: z.string().optional(),
  }),
  z.object({ type: z.literal('error'), code: z.string(), message: z.string(), ...origin }),
]);
export type StreamEvent = z.infer<typeof streamEventSchema>;
export type StreamEventType = StreamEvent['type'];
