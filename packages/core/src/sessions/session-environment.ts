import { readSessionRecord } from '../managed/session-record';
import type { RunEnvironment } from '../run/environment-tools';
import type { ArtifactStore } from '../store/artifact-store';
import type { WorkQueue } from '../environment-store/work-queue';
import { log } from '../log';
import type { FinishedRun } from './runner-deps';

/**
 * The self-hosted environment a session is in, or undefined (a session made through `/api/v2`, or in
 * a cloud environment). Read from the session's `/v1` record, whose `environment_tools` is set exactly
 * when its environment is self-hosted (an environment's kind never changes). Every run of the session
 * uses it, whichever door its message came through, so its commands go to the environment's work queue.
 */
export async function selfHostedEnvironmentOf(deps: { artifacts: ArtifactStore }, sessionId: string): Promise<RunEnvironment | undefined> {
  const record = await readSessionRecord(deps.artifacts, sessionId);
  if (!record?.environment_tools) return undefined;
  return { id: record.environment_id, tools: record.environment_tools };
}

/**
 * Withdraws the calls a run that has ended (cancelled, interrupted, expired) left queued for its
 * environment's worker: each item not stopped yet is stopped (`not_waiting`), so no worker is handed
 * a call nobody waits on, and a worker running one is refused its result. Must not throw.
 */
export async function withdrawEnvironmentCalls(deps: { artifacts: ArtifactStore; work: WorkQueue }, finished: FinishedRun): Promise<void> {
  const calls = finished.history.filter((r) => r.kind === 'approval_request' && r.run_id === finished.runId && r.client_tool);
  if (calls.length === 0) return;
  try {
    const environment = await selfHostedEnvironmentOf(deps, finished.session.session_id);
    if (!environment) return;
    const names = new Set(environment.tools.map((tool) => tool.name));
    for (const call of calls) {
      if (call.kind !== 'approval_request' || !names.has(call.name)) continue;
      const work = await deps.work.findCall(environment.id, finished.session.session_id, call.tool_use_id);
      if (work && work.state !== 'stopped') await deps.work.finish(work, 'not_waiting');
    }
  } catch (error) {
    log.warn('could not withdraw environment calls', { session_id: finished.session.session_id, error: error instanceof Error ? error.message : String(error) });
  }
}
