import { readSessionRecord, type ManagedSessionRecord } from '../store/session-record';
import type { RunEnvironment } from '@zero/agent/loop/environment-tools';
import type { ArtifactStore } from '../store/artifact-store';
import type { WorkQueue } from '../environments/work-queue';
import { conflict } from '@zero/agent/errors';
import { log } from '@zero/agent/log/log';
import type { FinishedRun } from './runner-deps';
import { clientAnswerOf } from './approvals';

/**
 * The self-hosted environment a session is in, or undefined (a session made through `/api/v2`, or in
 * a cloud environment). Read from the session's `/v1` record, whose `environment_tools` is set exactly
 * when its environment is self-hosted (an environment's kind never changes). Every run of the session
 * uses it, whichever door its message came through, so its commands go to the environment's work queue.
 */
export async function selfHostedEnvironmentOf(deps: { artifacts: ArtifactStore }, sessionId: string): Promise<RunEnvironment | undefined> {
  return selfHostedEnvironmentIn(await readSessionRecord(deps.artifacts, sessionId));
}

/** The self-hosted environment a session's `/v1` record names, or undefined (see `selfHostedEnvironmentOf`). */
export function selfHostedEnvironmentIn(record: ManagedSessionRecord | undefined): RunEnvironment | undefined {
  if (!record?.environment_tools) return undefined;
  return { id: record.environment_id, tools: record.environment_tools };
}

/**
 * Withdraws the calls a run that has ended (cancelled, interrupted, expired) left queued for its
 * environment's worker: each item not stopped yet is stopped (`not_waiting`), so no worker is handed
 * a call nobody waits on, and a worker running one is refused its result. Must not throw.
 */
export async function withdrawEnvironmentCalls(deps: { artifacts: ArtifactStore; work: WorkQueue }, finished: FinishedRun): Promise<void> {
  // A call answered with a result was answered by its worker (or failed by the queue): its item is stopped already.
  const calls = finished.history.filter(
    (r) => r.kind === 'approval_request' && r.run_id === finished.runId && r.client_tool && !clientAnswerOf(finished.history, finished.runId, r.tool_use_id).answer?.result,
  );
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

/**
 * Refuses a member's answer to a call of a self-hosted environment's tool (`POST /api/v2/sessions/:id/tool-results/…`,
 * the chat UI's tool output): only the environment's worker answers it, through the work queue, so no
 * session editor can forge what the model reads as the worker's result. A 409 naming the tool.
 */
export function refuseMemberAnswer(environment: RunEnvironment | undefined, call: { tool_use_id: string; name: string }): void {
  if (!environment?.tools.some((tool) => tool.name === call.name)) return;
  throw conflict(`tool call "${call.tool_use_id}" is of the environment tool "${call.name}"; only the worker of self-hosted environment ${environment.id} answers it`, {
    tool_call_id: call.tool_use_id,
  });
}
