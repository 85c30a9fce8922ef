import * as z from 'zod';
import { budgetScopeSchema, complexityLevelSchema, doneStatusSchema, effortSchema, runStatusSchema, usageSchema } from './fields';
import { planStepStatusSchema } from './plan';
import { attachmentRefSchema } from './attachments';
import { outcomeResultSchema, outcomeSpecSchema } from './outcome';
import { filesRewoundSchema } from './rewind';

/**
 * Fields that tag an event with the agent and run that produced it. A child run
 * (an agent working on a delegated task) also names the run that delegated to it.
 */
const origin = { agent_id: z.string().optional(), run_id: z.string().optional(), parent_run_id: z.string().optional() };

/**
 * A tool's calls in a run as they stand after one more was asked for: calls so far, the
 * stricter of its limits (`ZERO_MAX_CALLS_PER_TOOL`, `ZERO_TOOL_LIMITS`, the agent's
 * `tool_limits`), and how many more may run (0 once the tool's or the run's limit is reached).
 */
export const toolUsageSchema = z.object({
  tool: z.string(),
  calls: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  remaining: z.number().int().nonnegative(),
  /** Calls of every tool in the run, and their limit (`ZERO_MAX_TOOL_CALLS`). */
  total_calls: z.number().int().nonnegative(),
  total_limit: z.number().int().positive(),
});
export type ToolUsage = z.infer<typeof toolUsageSchema>;

/** Why the active agent changed: a session switched agents, a run delegated a task, or a delegate handed back. */
export const agentSwitchReasonSchema = z.enum(['switch', 'delegate', 'return']);
export type AgentSwitchReason = z.infer<typeof agentSwitchReasonSchema>;

/** Every event Zero streams, one JSON object per SSE `data:` line (the SSE `id:` is the event's position). */
export const streamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    session_id: z.string(),
    run_id: z.string(),
    agent_id: z.string(),
    /** The model the run answers on (the request's, the routed tier's or the agent's). */
    model: z.string().optional(),
    /** How hard it thinks: the message's, the agent's or the deployment's thinking budget as an effort level; `off` where the model does not think. */
    effort: effortSchema.optional(),
    /** Set when an unfinished run is carried on (after a crash or a handover). */
    resumed: z.boolean().optional(),
  }),
  /** The run stopped near its time limit and continues in the background: follow the session's events from this event's id. */
  z.object({ type: z.literal('handover'), session_id: z.string(), run_id: z.string(), reason: z.string() }),
  z.object({
    type: z.literal('message'),
    message_id: z.number().int(),
    text: z.string(),
    /** Images and PDFs sent with it (read them with `GET /api/v2/sessions/:id/attachments/:sha256`). */
    attachments: z.array(attachmentRefSchema).optional(),
    author: z.object({ id: z.string(), name: z.string().optional() }).optional(),
    run_id: z.string(),
    /** The outcome the message works toward (its first answer, or a revision the grader asked for). */
    outcome: outcomeSpecSchema.optional(),
    /** The message is an edit or a regenerate: the conversation branched after this history record. */
    branch_from: z.number().int().nonnegative().optional(),
  }),
  z.object({ type: z.literal('text'), delta: z.string(), ...origin }),
  /** A piece of the model's extended thinking, before it answers or acts; `redacted`: a block the API encrypted (nothing to show). */
  z.object({ type: z.literal('thinking'), delta: z.string(), redacted: z.boolean().optional(), ...origin }),
  /**
   * A piece of a tool call's input JSON as the model writes it, so a long input (a file being written)
   * shows while it is written; the `tool_call` with the whole input follows. Several pieces that
   * arrive close together come as one event.
   */
  z.object({ type: z.literal('tool_call_delta'), id: z.string(), name: z.string(), delta: z.string(), ...origin }),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), input: z.unknown(), ...origin }),
  /** The conversation was compacted before the next model call: how many input tokens it had and has, and how many turns were folded into a summary. */
  z.object({ type: z.literal('compacted'), tokens_before: z.number().int(), tokens_after: z.number().int(), turns_folded: z.number().int(), ...origin }),
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
    /** The provider the step is redone on, when its own was unavailable (a fallback), e.g. `bedrock:claude-sonnet-4-6`. */
    provider: z.string().optional(),
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
  /** A call waits for a person: an editor or owner answers with `POST /sessions/:id/approvals/:id`. */
  z.object({
    type: z.literal('confirmation_required'),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    /** The policy that asked, e.g. `session override "write_file"`. */
    policy: z.string().optional(),
    /** The roles whose members may decide. */
    may_answer: z.array(z.enum(['owner', 'editor'])).optional(),
    ...origin,
  }),
  /** The model called a client tool: the run waits until a member's client answers with `POST /sessions/:id/tool-results/:id`. */
  z.object({
    type: z.literal('client_tool_call'),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    /** The roles whose members may answer. */
    may_answer: z.array(z.enum(['owner', 'editor'])).optional(),
    ...origin,
  }),
  /** A decision on a call that waited: by a member, or by Zero when the approval expired or a new message interrupted the run. */
  z.object({
    type: z.literal('approval'),
    id: z.string(),
    decision: z.enum(['allow', 'deny']),
    message: z.string().optional(),
    by: z.object({ id: z.string(), name: z.string().optional() }).optional(),
    reason: z.enum(['expired', 'interrupted']).optional(),
    at: z.string(),
    ...origin,
  }),
  z.object({
    type: z.literal('done'),
    run_id: z.string(),
    /** `awaiting_approval`: the run waits for decisions on `pending` calls; it is not over, and its stream ends here. */
    status: doneStatusSchema,
    pending: z.array(z.string()).optional(),
    steps: z.number().int(),
    usage: usageSchema,
    reason: z.string().optional(),
    /** With status `budget_reached`: the budget that is spent (raise it and send a message to carry on). */
    budget: budgetScopeSchema.optional(),
  }),
  z.object({ type: z.literal('error'), code: z.string(), message: z.string(), ...origin }),
  /**
   * How the run was routed by its task's complexity (F1–F5): the level and who decided it (the request, the
   * agent file, or an operator's rule, named), the tier and model it runs on, and the tools it may use (none: text only).
   */
  z.object({
    type: z.literal('routing'),
    level: complexityLevelSchema,
    by: z.enum(['request', 'agent', 'rule']),
    rule: z.string().optional(),
    tier: z.enum(['light', 'standard', 'heavy']),
    model: z.string(),
    tools: z.array(z.string()),
    ...origin,
  }),
  /** Live per-tool statistics: sent each time a call of the tool is counted (or refused at its limit), before it runs. */
  toolUsageSchema.extend({ type: z.literal('tool_usage'), ...origin }),
  /** A plan's step started, done or failed (a run of a plan, see `plan/progress.ts`); `step` is 1-based, of `steps`. */
  /**
   * An outcome's evaluation cycle (see `outcomes/evaluate-outcome.ts`): `start` as the grader is called after the
   * run's answer, `ongoing` while the grader's model answers (its first output, then at most every 10 s of it),
   * `end` with its result, score (0 to 1), explanation and the grader's own usage.
   */
  z.object({
    type: z.literal('outcome_evaluation'),
    phase: z.enum(['start', 'ongoing', 'end']),
    outcome_id: z.string(),
    iteration: z.number().int().nonnegative(),
    /** The outcome's most cycles (events stored before it was carried lack it). */
    max_iterations: z.number().int().positive().optional(),
    result: outcomeResultSchema.optional(),
    score: z.number().min(0).max(1).optional(),
    explanation: z.string().optional(),
    usage: usageSchema.optional(),
    ...origin,
  }),
  /** A member rewound the files the session wrote to a point of its history (see docs/sessions-steering.md); not part of any run. */
  filesRewoundSchema.extend({ type: z.literal('files_rewound'), ...origin }),
  z.object({ type: z.literal('plan_progress'), step: z.number().int().positive(), steps: z.number().int().positive(), title: z.string(), status: planStepStatusSchema, note: z.string().optional(), ...origin }),
]);
export type StreamEvent = z.infer<typeof streamEventSchema>;
export type StreamEventType = StreamEvent['type'];

/**
 * The data of the SSE event named `reconnect` that ends a live-view stream
 * whose time is up: reconnect with `Last-Event-ID` (or `?after=`) set to `after`.
 */
export const reconnectEventSchema = z.object({ after: z.string().nullable() });
export type ReconnectEvent = z.infer<typeof reconnectEventSchema>;
