import type { PlanProgressPart, PlanStepStatus } from '../wire';

/** The id of a run's `data-plan-progress` part: one per run, so each report replaces the last. */
export const planProgressPartId = (runId: string) => `plan-${runId}`;

/** One step's report, as the `plan_progress` event carries it. */
export interface PlanStepReport {
  step: number;
  steps: number;
  title: string;
  status: PlanStepStatus;
  note?: string;
}

/**
 * The plan's part after a report: the step's entry is replaced (its note too), the others kept, in
 * step order. The UI stream and the history rebuild both fold reports with it, so they agree.
 */
export function withPlanReport(part: PlanProgressPart | undefined, report: PlanStepReport): PlanProgressPart {
  const entry = { step: report.step, title: report.title, status: report.status, ...(report.note ? { note: report.note } : {}) };
  const reported = [...(part?.reported ?? []).filter((r) => r.step !== report.step), entry].sort((a, b) => a.step - b.step);
  return { steps: report.steps, reported };
}

/**
 * The report a successful `plan_progress` call made, from its input and the plan's steps (as the
 * run's tool checked it); undefined when the input names no step of the plan. Runs on history, so
 * it reads the stored input defensively.
 */
export function planReportOf(input: unknown, steps: readonly string[]): PlanStepReport | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const { step, status, note } = input as { step?: unknown; status?: unknown; note?: unknown };
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 1 || step > steps.length) return undefined;
  if (status !== 'started' && status !== 'done' && status !== 'failed') return undefined;
  return { step, steps: steps.length, title: steps[step - 1]!, status, ...(typeof note === 'string' && note ? { note } : {}) };
}
