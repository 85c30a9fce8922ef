import * as z from 'zod';
import { authorSchema, doneStatusSchema, effortSchema, runStatusSchema, usageSchema } from './fields';
import { toolUsageSchema } from './events';
import { planStepStatusSchema } from './plan';
import { outcomeGradePartSchema } from './outcome';

/** A tool call of a delegate, as its delegation part shows it. */
export const delegateToolSchema = z.object({
  type: z.literal('tool'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  state: z.enum(['running', 'waiting', 'done', 'failed']),
  output: z.string().optional(),
});

/**
 * A task one agent handed to another (`delegate_agent`): the hand-over, the delegate's own
 * words and tool calls so far, and, once it handed back, how it ended and what it spent
 * (already counted in the answer's usage). The part's id is the child run's id, so each
 * update replaces it in place.
 */
export const delegationSchema = z.object({
  run_id: z.string(),
  /** The run that delegated: the answer's own, or a delegate's when delegates delegate. */
  parent_run_id: z.string(),
  from: z.string(),
  to: z.string(),
  /** The caller's `delegate_agent` call this delegation answers. */
  tool_call_id: z.string().optional(),
  /** The delegate's words and tool calls, in the order it wrote and made them. */
  items: z.array(z.union([z.object({ type: z.literal('text'), text: z.string() }), delegateToolSchema])),
  status: runStatusSchema.optional(),
  usage: usageSchema.optional(),
});
export type Delegation = z.infer<typeof delegationSchema>;

/**
 * Where a run of a plan stands: its number of steps and each step it reported (`plan_progress`),
 * by step number, with the last status and note. A step not listed is still pending. The part's
 * id is `plan-<run id>`, so each report replaces it in place; it stays in the message (rebuilt the
 * same from the history).
 */
export const planProgressPartSchema = z.object({
  steps: z.number().int().positive(),
  reported: z.array(z.object({ step: z.number().int().positive(), title: z.string(), status: planStepStatusSchema, note: z.string().optional() })),
});
export type PlanProgressPart = z.infer<typeof planProgressPartSchema>;
export type DelegateTool = z.infer<typeof delegateToolSchema>;

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
  /** The model an answer was asked of, and how hard it thinks (a reloaded answer: the effort its message asked for, if any). */
  model: z.string().optional(),
  effort: effortSchema.optional(),
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
  delegation: delegationSchema,
  /** A tool's calls so far in the run, its limit and what remains: a transient part (useChat's `onData`, not kept in the message), id `tool-usage-<tool>`. */
  'tool-usage': toolUsageSchema,
  /** A run of a plan's steps so far: id `plan-<run id>`, replaced at each report (see `planProgressPartSchema`). */
  'plan-progress': planProgressPartSchema,
  /**
   * The grade of a run's answer against its message's outcome rubric: id `outcome-<run id>`, replaced as the
   * evaluation goes (`grading` while the grader works, then its result, score and reasons). `iteration` is 0-based.
   */
  outcome: outcomeGradePartSchema,
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
  dataPart('delegation'),
  dataPart('tool-usage'),
  dataPart('plan-progress'),
  dataPart('outcome'),
  z.looseObject({ type: z.string() }),
]);
