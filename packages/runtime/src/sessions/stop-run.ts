import { STOP_REASONS, type StopKind } from '@zero/agent/loop/stop-reasons';
import type { SessionRunnerDeps } from './runner-deps';

/** Asks a run to stop at its next safe point, wherever it runs. */
export async function stopRun(deps: Pick<SessionRunnerDeps, 'runs' | 'leases'>, sessionId: string, runId: string, reason: StopKind): Promise<boolean> {
  const local = deps.runs.stop(runId, STOP_REASONS[reason]);
  const remote = await deps.leases.requestStop(sessionId, { run_id: runId, reason });
  return local || remote;
}
