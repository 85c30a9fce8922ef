import * as z from 'zod';
import { planStepStatusSchema, type PlanStepStatus } from '../wire/plan';
import { defineTool, type ToolSpec } from '../tools/tool';

/**
 * Plan progress: a run of a plan (a message made from one, whose record keeps the plan's steps) is
 * given the `plan_progress` tool, and reports each step started, done or failed with it. Each report
 * is a `plan_progress` event as it happens, and stays in the session log as the tool's call and
 * result, from which `planProgressOf` reads where the plan stands.
 */
export const PLAN_PROGRESS_TOOL = 'plan_progress';

const progressInput = z.object({
  step: z.number().int().min(1).describe('The step, numbered as in the plan (1 is the first).'),
  status: planStepStatusSchema.describe('"started" when you begin the step, then "done" or "failed".'),
  note: z.string().max(2000).optional().describe('One line: what came of it, or why it failed.'),
});
type ProgressInput = z.output<typeof progressInput>;

/** One report, as the `plan_progress` event carries it. */
export interface PlanProgress {
  step: number;
  steps: number;
  title: string;
  status: PlanStepStatus;
  note?: string;
}

/** The tool a run of a plan with these steps reports its progress with; a step the plan lacks is refused, naming the steps. */
export function createPlanProgressTool(steps: readonly string[]): ToolSpec<ProgressInput> {
  return defineTool({
    name: PLAN_PROGRESS_TOOL,
    // It records where the run is; it changes nothing outside the session.
    readOnly: true,
    description: `Report progress through the plan (${steps.length} steps): call it with a step's number and "started" when you begin it, then "done" or "failed" (with a note) when it ends.`,
    input: progressInput,
    async execute(input) {
      const progress = progressOf(input, steps);
      if (!progress) return { content: `step: the plan has ${steps.length} step${steps.length === 1 ? '' : 's'} (1 to ${steps.length}); there is no step ${input.step}.`, is_error: true };
      return `Step ${progress.step} of ${progress.steps} (${progress.title}): ${progress.status}.`;
    },
  });
}

/** The report a call makes, or undefined when its input is not one (a step the plan lacks). */
export function progressOf(input: unknown, steps: readonly string[]): PlanProgress | undefined {
  const parsed = progressInput.safeParse(input);
  if (!parsed.success || parsed.data.step > steps.length) return undefined;
  const { step, status, note } = parsed.data;
  return { step, steps: steps.length, title: steps[step - 1]!, status, ...(note ? { note } : {}) };
}

/** Where a step stands: not begun yet, or its last report. */
export interface PlanStepState {
  step: number;
  title: string;
  status: PlanStepStatus | 'pending';
  note?: string;
}

/**
 * The fields of the session log's records that plan progress reads (a user message's steps, the
 * model's tool calls, their results): plans sit below the store, so they name no stored type.
 */
export interface PlanLogRecord {
  kind: string;
  run_id?: string;
  plan_steps?: readonly string[];
  content?: readonly { type: string; id?: unknown; name?: unknown; input?: unknown }[] | string;
  name?: string;
  is_error?: boolean;
  tool_use_id?: string;
}

/** Where the plan of a run stands, read from the session log; undefined when the run was not made from a plan. */
export function planProgressOf(history: readonly PlanLogRecord[], runId: string): PlanStepState[] | undefined {
  const message = history.find((r) => r.kind === 'user_message' && r.run_id === runId);
  const steps = message?.plan_steps;
  if (!steps?.length) return undefined;
  const state: PlanStepState[] = steps.map((title, i) => ({ step: i + 1, title, status: 'pending' }));
  const inputs = new Map<string, unknown>();
  for (const record of history) {
    if (record.run_id !== runId) continue;
    if (record.kind === 'assistant') {
      for (const block of typeof record.content === 'string' ? [] : (record.content ?? [])) if (block.type === 'tool_use' && block.name === PLAN_PROGRESS_TOOL && typeof block.id === 'string') inputs.set(block.id, block.input);
    } else if (record.kind === 'tool_result' && record.name === PLAN_PROGRESS_TOOL && !record.is_error && record.tool_use_id) {
      const progress = progressOf(inputs.get(record.tool_use_id), steps);
      if (progress) state[progress.step - 1] = { step: progress.step, title: progress.title, status: progress.status, ...(progress.note ? { note: progress.note } : {}) };
    }
  }
  return state;
}
