import * as z from 'zod';
import { attachmentRefSchema } from '../wire/attachments';
import { authorSchema, budgetScopeSchema, effortSchema, runStatusSchema, usageSchema, voiceModeSchema } from '../wire/fields';
import { outcomeSpecSchema } from '../wire/outcome';
import { systemPromptOverrideSchema } from '../wire/system-prompt';

/**
 * The records a run writes to its session's log: one schema, read by the loop, kept by the store
 * (runtime's store/items/log-record.ts adds the key and the version wrapper) and served by the API
 * (the wire's `historyRecordSchema` is derived from it), so the three cannot drift.
 */

/** The version of the record shape written now. */
export const RECORD_VERSION = 1;

const clientToolRecord = z.object({ name: z.string(), description: z.string(), input_schema: z.looseObject({ type: z.literal('object') }), replaces: z.string().optional() });

const contentBlocks = z.array(z.looseObject({ type: z.string() }));

const base = {
  v: z.literal(RECORD_VERSION),
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
    /** Images and PDFs sent with the message: pointers to blobs stored once by hash (`blobs/sha256/…`), never the bytes. */
    attachments: z.array(attachmentRefSchema).optional(),
    author: authorSchema.optional(),
    agent_id: z.string(),
    model: z.string(),
    voice_mode: voiceModeSchema,
    /** Tools the sender's client runs, offered to the model for this run (and when it is resumed). */
    client_tools: z.array(clientToolRecord).optional(),
    /** The message's own thinking budget (0: off), over the agent's: a resumed run thinks as the message asked. */
    thinking_budget: z.number().int().nonnegative().optional(),
    /** How hard the run thinks on `model`, as its answer shows it (the message's, the agent's or the deployment's budget; absent in records written before). */
    effort: effortSchema.optional(),
    /** The steps of the plan the message was made from: the run reports its progress through them (see `plan/progress.ts`). */
    plan_steps: z.array(z.string()).optional(),
    /** The message's own cap on the tool loop's iterations (`max_tool_iterations`): a resumed run keeps it. */
    max_tool_iterations: z.number().int().positive().optional(),
    /** The tools the run was routed to (tier routing, `tools_required`): a resumed run keeps them; absent: the agent's. */
    routed_tools: z.array(z.string()).optional(),
    /** The outcome the message works toward: after its run's answer a grader scores it against the rubric (`outcomes/`). */
    outcome: outcomeSpecSchema.optional(),
    /** The message's change to the agent's system prompt (an eval variant's): a resumed run keeps it. */
    system_prompt: systemPromptOverrideSchema.optional(),
    /**
     * An edit or a regenerate (see docs/sessions-steering.md): the conversation branches here. The
     * active branch keeps the records up to `branch_from` and goes on with this message; the records
     * between stay stored, an earlier branch readable with `?branches=all`.
     */
    branch_from: z.number().int().nonnegative().optional(),
  }),
  z.object({
    ...base,
    kind: z.literal('assistant'),
    step: z.number().int(),
    agent_id: z.string(),
    content: contentBlocks,
    usage: usageSchema,
    /** The model that answered when the step fell back from the run's (`provider:model`); absent otherwise. */
    model: z.string().optional(),
  }),
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
    budget: budgetScopeSchema.optional(),
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
    /** Images the model saw with `content` (an MCP tool's image results), base64; a large record goes to S3 whole. */
    images: z.array(z.object({ media_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']), data: z.string() })).optional(),
  }),
  /** The run stopped near its time budget and continues elsewhere (the worker); it is not over. */
  z.object({ ...base, kind: z.literal('run_handover'), steps: z.number().int(), usage: usageSchema, reason: z.string() }),
  /**
   * A call the permission policy marks `ask`: it waits for a person's decision (an `approval` record).
   * `client_tool`: a call of a client tool, which waits the same way for its result (an `approval` with `result`).
   */
  z.object({
    ...base,
    kind: z.literal('approval_request'),
    tool_use_id: z.string(),
    name: z.string(),
    input: z.unknown(),
    policy: z.string(),
    client_tool: z.literal(true).optional(),
  }),
  /** The run waits for decisions on these calls: its invocation ended and it holds no lease; a decision resumes it. */
  z.object({ ...base, kind: z.literal('run_wait'), steps: z.number().int(), usage: usageSchema, pending: z.array(z.string()) }),
  /**
   * A decision on an `approval_request`, by a member (`by`) or by Zero (`reason`: the approval expired, or a
   * new message interrupted the run). `message` is shown to the model with a denial. `result`: a client's
   * answer to a client tool call (with `allow`), what the model is sent as the call's result.
   */
  z.object({
    ...base,
    kind: z.literal('approval'),
    tool_use_id: z.string(),
    decision: z.enum(['allow', 'deny']),
    message: z.string().optional(),
    by: authorSchema.optional(),
    reason: z.enum(['expired', 'interrupted']).optional(),
    result: z.object({ content: z.string(), is_error: z.boolean().optional(), truncated: z.boolean().optional() }).optional(),
  }),
  /**
   * One program run_command executed (an audit entry): when it started, the folder inside the run's
   * project copy, its argv, how it ended and how long it took. Its output is the call's tool_result.
   */
  z.object({
    ...base,
    kind: z.literal('command'),
    tool_use_id: z.string(),
    project_id: z.string(),
    started_at: z.string(),
    cwd: z.string(),
    argv: z.array(z.string()),
    exit_code: z.number().int().nullable(),
    signal: z.string().optional(),
    timed_out: z.boolean().optional(),
    duration_ms: z.number().int().nonnegative(),
  }),
  /** A log position a run reserved but never wrote, sealed by the run that took its lease over. */
  z.object({ ...base, kind: z.literal('void') }),
  /**
   * The conversation was compacted before a model call: the turns up to `through_run_id` (but the first user
   * message) are sent to the model as `summary` from here on. Nothing is deleted: the log keeps every turn.
   */
  z.object({
    ...base,
    kind: z.literal('compaction'),
    through_run_id: z.string(),
    turns_folded: z.number().int(),
    summary: z.string(),
    tokens_before: z.number().int(),
    tokens_after: z.number().int(),
    usage: usageSchema,
  }),
]);
export type LogRecord = z.infer<typeof logRecordSchema>;
export type LogRecordKind = LogRecord['kind'];
/** A record before the store gives it its place in the log. */
export type NewLogRecord = LogRecord extends infer R ? (R extends LogRecord ? Omit<R, 'v' | 'seq' | 'at'> : never) : never;
