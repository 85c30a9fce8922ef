import type { ModelProvider } from '@zero/agent/model/provider';
import type { OutcomeResult, OutcomeSpec, StreamEvent, Usage } from '@zero/agent/wire';
import type { LogRecord } from '../store/records';
import type { SessionStore } from '../store/session-store';
import { answerOf, gradeAgainstRubric } from '@zero/agent/loop/grade';

/** What an outcome's evaluation needs: the grader's model and the session's inbox (for a revision). */
export interface OutcomeDeps {
  provider: ModelProvider;
  sessions: Pick<SessionStore, 'enqueue'>;
}

/** The longest gap between an evaluation's `ongoing` heartbeats while its grader's model streams. */
export const OUTCOME_HEARTBEAT_MS = 10_000;

/** The run whose answer is graded. */
export interface GradedRun {
  sessionId: string;
  runId: string;
  /** The run's user message, which carries the outcome. */
  message: Extract<LogRecord, { kind: 'user_message' }> & { outcome: OutcomeSpec };
  /** The session's log, this run's records included. */
  history: readonly LogRecord[];
  /** The grader's model. */
  model: string;
  emit: (event: StreamEvent) => void;
  signal?: AbortSignal;
}

/** The deterministic run id of the revision a run's grade asks for: a run resumed after a crash enqueues the same one, which the drive answers once. */
export const revisionRunId = (runId: string) => `${runId}_revision`;

/**
 * One evaluation cycle of an outcome, after the run's answer (a completed run whose message carries one):
 * `outcome_evaluation` start, the grader's model call in its own context (the rubric, the task, the
 * answer) with an `ongoing` heartbeat when its model first answers and then at most every
 * `OUTCOME_HEARTBEAT_MS` while it streams, `outcome_evaluation` end with the result. When the grade is `needs_revision` and cycles remain,
 * the grader's reasons go back to the agent as the session's next message (same outcome, next iteration).
 * Returns the grader's usage, counted in the run's. Must not throw: a grader whose model call fails ends
 * the outcome `failed` with the reason.
 */
export async function evaluateOutcome(deps: OutcomeDeps, run: GradedRun): Promise<{ result: OutcomeResult; usage?: Usage }> {
  const { outcome } = run.message;
  const base = { type: 'outcome_evaluation' as const, outcome_id: outcome.outcome_id, iteration: outcome.iteration, max_iterations: outcome.max_iterations, run_id: run.runId };
  run.emit({ ...base, phase: 'start' });
  let heartbeatAt: number | undefined;
  const onOutput = () => {
    if (heartbeatAt !== undefined && Date.now() - heartbeatAt < OUTCOME_HEARTBEAT_MS) return;
    heartbeatAt = Date.now();
    run.emit({ ...base, phase: 'ongoing' });
  };
  let grade: Awaited<ReturnType<typeof gradeAgainstRubric>>;
  try {
    grade = await gradeAgainstRubric(deps.provider, run.model, { rubric: outcome.rubric, task: outcome.description, result: answerOf(run.history, run.runId) }, { signal: run.signal, onOutput });
  } catch (error) {
    const explanation = `the grader could not run: ${error instanceof Error ? error.message : String(error)}`;
    run.emit({ ...base, phase: 'end', result: 'failed', explanation });
    return { result: 'failed' };
  }
  const lastCycle = outcome.iteration + 1 >= outcome.max_iterations;
  const result: OutcomeResult = grade.verdict === 'needs_revision' && lastCycle ? 'max_iterations_reached' : grade.verdict;
  if (result === 'needs_revision') {
    await deps.sessions.enqueue(run.sessionId, {
      run_id: revisionRunId(run.runId),
      text: `A grader checked your result against the outcome's rubric and asks for a revision (attempt ${outcome.iteration + 2} of at most ${outcome.max_iterations}). Its feedback:\n\n${grade.reasons}\n\nRevise your result so that it meets every criterion.`,
      ...(run.message.author ? { author: run.message.author } : {}),
      agent_id: run.message.agent_id,
      model: run.message.model,
      outcome: { ...outcome, iteration: outcome.iteration + 1 },
      at: new Date().toISOString(),
    });
  }
  run.emit({ ...base, phase: 'end', result, score: grade.score, explanation: grade.reasons, usage: grade.usage });
  return { result, usage: grade.usage };
}
