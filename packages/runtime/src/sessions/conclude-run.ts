import { addUsage } from '@zero/agent/events/usage';
import type { RunBudget } from '@zero/agent/loop/budget';
import { describeFailure, type RunOutcome } from '@zero/agent/loop/end-run';
import { log } from '@zero/agent/log/log';
import { tierModel } from '@zero/agent/model/aliases';
import type { StreamEvent, Usage } from '@zero/agent/wire';
import type { LogRecord } from '../store/records';
import type { SessionRunnerDeps } from './runner-deps';

/** The run being concluded: where it is, the session's title as the run knows it, and where its events and spend go. */
export interface ConcludedRun {
  sessionId: string;
  runId: string;
  /** The session's title as this run knows it: a title a person gave while the run went on stays. */
  title: string;
  emit: (event: StreamEvent) => void;
  budget?: RunBudget;
  signal: AbortSignal;
}

/**
 * A completed run's conclusion, before its `done` (the loop's `conclude` port): a new session's first
 * exchange is titled by the light tier (see session-title.ts), so the sessions list fetched on `done`
 * shows the title; and when the run's message works toward an outcome (`user.define_outcome`, a chat's
 * `outcome`), a grader in its own context scores the answer against the rubric and may send the agent
 * back (see outcomes/evaluate-outcome.ts). `withAnswer` is the session's log with the run's answer (written
 * with the run's end, after this). Returns the calls' usage, counted in the run's, and the title when one
 * was stored. Must not throw: a failed title call leaves the title the session had, and the run goes on to
 * its end as it would have; a grader that fails ends the outcome `failed`.
 */
export async function concludeRun(deps: SessionRunnerDeps, run: ConcludedRun, outcome: RunOutcome, withAnswer: readonly LogRecord[]): Promise<{ usage?: Usage; title?: string }> {
  if (outcome.status !== 'completed') return {};
  const titled = await titleSession(deps, run, withAnswer);
  const graded = await gradeOutcome(deps, run, withAnswer);
  const usage = titled?.usage && graded ? addUsage({ ...titled.usage }, graded) : (titled?.usage ?? graded);
  return { usage, title: titled?.title };
}

async function gradeOutcome(deps: SessionRunnerDeps, run: ConcludedRun, withAnswer: readonly LogRecord[]): Promise<Usage | undefined> {
  const message = withAnswer.find((r): r is Extract<LogRecord, { kind: 'user_message' }> => r.kind === 'user_message' && r.run_id === run.runId && !r.parent_run_id);
  if (!message?.outcome) return undefined;
  const { evaluateOutcome } = await import('../outcomes/evaluate-outcome');
  const { sessionId, runId, emit, signal } = run;
  const { usage } = await evaluateOutcome(deps, { sessionId, runId, message: { ...message, outcome: message.outcome }, history: [...withAnswer], model: tierModel('standard', deps.tiers ?? {}, deps.defaultModel), emit, signal });
  return usage;
}

async function titleSession(deps: SessionRunnerDeps, run: ConcludedRun, withAnswer: readonly LogRecord[]): Promise<{ usage: Usage; title?: string } | undefined> {
  if (!deps.sessionTitles) return undefined;
  const [{ firstExchange }, { titleOf }] = await Promise.all([import('./session-title'), import('@zero/agent/loop/session-title')]);
  const exchange = firstExchange([...withAnswer], run.runId, run.title);
  if (!exchange) return undefined;
  const ids = { session_id: run.sessionId, run_id: run.runId };
  let titled: Awaited<ReturnType<typeof titleOf>>;
  try {
    titled = await titleOf(deps.provider, tierModel('light', deps.tiers ?? {}, deps.defaultModel), exchange, { budget: run.budget, signal: run.signal });
  } catch (error) {
    log.warn('session title failed', { ...ids, error: describeFailure(error, deps.secrets ?? []).message });
    return undefined;
  }
  const { title, usage } = titled;
  try {
    // Renamed by a person while the run went on: their title stays.
    const current = await deps.sessions.getSession(run.sessionId);
    if (title && current && current.title === run.title) {
      await deps.sessions.updateSession(run.sessionId, { title });
      return { usage, title };
    }
  } catch (error) {
    log.warn('session title not stored', { ...ids, error: describeFailure(error, deps.secrets ?? []).message });
  }
  return { usage };
}
