import { conflict } from '@zero/agent/errors';
import { TOOLSET_TOOLS, type ToolsetToolName } from '../managed/toolset';
import { readSessionRecord } from '@zero/runtime/store/session-record';
import type { ManagedAgentVersion } from '../managed/agent-document';
import { decideApprovals } from '@zero/runtime/sessions/decide-approval';
import { waitingRun } from '@zero/runtime/sessions/approvals';
import type { FinishedRun, SessionRunnerDeps } from '@zero/runtime/sessions/runner-deps';
import { log } from '@zero/agent/log/log';
import type { ClientTool } from '@zero/agent/wire';
import type { EnvironmentStore } from '@zero/runtime/environments/environment-store';
import type { EnvironmentRecord } from '@zero/runtime/store/items/environment';
import { ENVIRONMENT_TOOL_DEFINITIONS, ENVIRONMENT_TOOL_NAMES } from './toolset-definitions';
import type { WorkItem } from '@zero/runtime/store/items/work-item';
import type { WorkQueue } from '@zero/runtime/environments/work-queue';

/** What the self-hosted queue needs of the runtime: the stores, and what records a call's result. */
export type SelfHostedDeps = SessionRunnerDeps & { environments: EnvironmentStore; work: WorkQueue };

/** The toolset tools an agent version has enabled (`bash`, `read`, …). */
export function enabledToolsetTools(doc: ManagedAgentVersion): string[] {
  return doc.tools.flatMap((tool) => (tool.type === 'agent_toolset_20260401' ? tool.configs.filter((c) => c.enabled).map((c) => c.name) : []));
}

/**
 * The environment tools of a self-hosted session, as client tools: the toolset's own definitions,
 * each standing in for the Zero tool of the same job, so the model calls `bash` and a worker runs
 * it; the server runs none of them. `enabled`: the toolset tools the agent has.
 */
export function environmentClientTools(enabled: readonly string[]): ClientTool[] {
  return ENVIRONMENT_TOOL_DEFINITIONS.filter((tool) => enabled.includes(tool.name)).map((tool) => ({
    ...tool,
    replaces: TOOLSET_TOOLS[tool.name as ToolsetToolName],
  }));
}

/**
 * Queues the environment calls a run waits on when its session is in a self-hosted environment
 * (called as the run waits, its lease held). Idempotent: a call already queued is left as it is.
 * Must not throw: a call it could not queue is queued when the run waits again, or expires as an approval would.
 */
export async function queueEnvironmentCalls(deps: SelfHostedDeps, waiting: FinishedRun): Promise<void> {
  try {
    const pending = waitingRun(waiting.history)?.pending.filter((p) => p.client_tool && ENVIRONMENT_TOOL_NAMES.has(p.name)) ?? [];
    if (pending.length === 0) return;
    const record = await readSessionRecord(deps.artifacts, waiting.session.session_id);
    const environment = record ? await deps.environments.get(record.environment_id) : undefined;
    if (environment?.kind !== 'self_hosted') return;
    for (const call of pending) {
      await deps.work.enqueue({ environmentId: environment.id, sessionId: waiting.session.session_id, runId: call.run_id, toolUseId: call.tool_use_id, tool: call.name, input: call.input });
    }
  } catch (error) {
    log.warn('could not queue environment calls', { session_id: waiting.session.session_id, error: error instanceof Error ? error.message : String(error) });
  }
}

/** Records a call's result (as a client tool's) if the run still waits on it; the run then goes on. */
async function answerCall(deps: SelfHostedDeps, work: WorkItem, result: { content: string; is_error: boolean; truncated?: boolean }) {
  return decideApprovals(deps, work.session_id, (run) =>
    run?.runId === work.run_id && run.pending.some((p) => p.tool_use_id === work.tool_use_id)
      ? [{ toolCallId: work.tool_use_id, decision: 'allow' as const, result: { content: result.content, ...(result.is_error ? { is_error: true } : {}), ...(result.truncated ? { truncated: true } : {}) } }]
      : [],
  );
}

/**
 * A worker's result for its work: accepted only while its lease holds and the item is not stopped
 * (one conditional write), so a worker that lost its lease is refused with a 409 and its call,
 * failed already, is never answered twice.
 */
export async function acceptWorkResult(deps: SelfHostedDeps, work: WorkItem, result: { content: string; is_error: boolean; truncated?: boolean }): Promise<void> {
  let finished: WorkItem | undefined;
  // A heartbeat between the read and the write changes the item: read it again, while it is still live.
  for (let attempt = 0, current: WorkItem | undefined = work; attempt < 3 && current && !finished; attempt++) {
    finished = await deps.work.finish(current, 'result', { requireLease: true });
    if (!finished) current = await deps.work.get(work.environment_id, work.id);
  }
  if (!finished) {
    await failExpiredWork(deps, work.environment_id);
    throw conflict(`work "${work.id}" is not held by a live lease (${work.state}); its result is refused`, { field: 'tool_use_id' });
  }
  await answerCall(deps, work, result);
}

/**
 * Fails the calls whose worker stopped heartbeating: each item is stopped (one conditional write:
 * whoever wins answers) and its call gets an error result the model sees. The call is not run again:
 * it may have run partly on the lost worker. Called by every poll and stats request of the environment.
 */
export async function failExpiredWork(deps: SelfHostedDeps, environmentId: string): Promise<number> {
  let failed = 0;
  for (const work of await deps.work.expired(environmentId)) {
    const stopped = await deps.work.finish(work, 'lease_expired');
    if (!stopped) continue;
    failed += 1;
    await answerCall(deps, stopped, {
      content: `The self-hosted worker running this ${work.tool} call stopped heartbeating (lease of ${work.ttl_seconds}s ran out). It was not run again: it may have run partly. Check its effects before retrying.`,
      is_error: true,
    });
  }
  return failed;
}

/** Stops a call's work at someone's request: the call fails with an error result (a worker still running it is refused its result). */
export async function stopWork(deps: SelfHostedDeps, work: WorkItem, force: boolean): Promise<WorkItem> {
  if (work.state === 'stopped') throw conflict(`work "${work.id}" is stopped already`);
  if (!force && (work.state === 'starting' || work.state === 'active')) {
    const stopping = await deps.work.requestStop(work);
    if (stopping) return stopping;
  }
  const stopped = await deps.work.finish(work, 'stopped');
  if (!stopped) throw conflict(`work "${work.id}" changed while it was being stopped; read it again`);
  await answerCall(deps, stopped, { content: `The ${work.tool} call's work was stopped before it returned a result.`, is_error: true });
  return stopped;
}

/**
 * A worker acknowledges its work: only once (a 409 for any later one), and only while the run
 * still waits on the call; one it no longer waits on is stopped, never run.
 */
export async function acknowledgeWork(deps: SelfHostedDeps, work: WorkItem): Promise<WorkItem> {
  const acknowledged = await deps.work.acknowledge(work.environment_id, work.id);
  const run = waitingRun(await deps.sessions.readLogTail(work.session_id, 200));
  if (run?.runId === work.run_id && run.pending.some((p) => p.tool_use_id === work.tool_use_id)) return acknowledged;
  await deps.work.finish(acknowledged, 'not_waiting');
  throw conflict(`the session no longer waits on call "${work.tool_use_id}" (interrupted or answered): the work is stopped`);
}

/** Deletes an environment; a self-hosted one's queued and running calls fail with an error result (nothing is left waiting on a queue nobody polls). */
export async function deleteEnvironment(deps: SelfHostedDeps, environment: EnvironmentRecord): Promise<void> {
  await deps.environments.delete(environment.id);
  if (environment.kind !== 'self_hosted') return;
  for (const work of await deps.work.list(environment.id)) if (work.state !== 'stopped') await stopWork(deps, work, true).catch(() => undefined);
}
