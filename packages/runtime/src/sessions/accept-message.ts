import { PLAN_PROGRESS_TOOL } from '@zero/agent/plan/progress';
import { randomUUID } from 'node:crypto';
import { requireAgent } from '@zero/agent/definitions/catalog';
import type { EventPosition } from '@zero/agent/events/ids';
import { DEFAULT_OUTCOME_ITERATIONS, type ChatRequest, type OutcomeRequest, type OutcomeSpec } from '@zero/agent/wire';
import { invalidField } from '@zero/agent/errors';
import { sessionBusy } from '../store/lease-store';
import type { SessionMeta } from '../store/records';
import { POSITION_BLOCKS } from '../store/positions';
import type { User } from '../auth/roles';
import { requireAccess } from './access';
import { admitMessage } from './admit-message';
import { createOwnedSession, titleFrom } from './open-session';
import { releaseSessionBlobs } from './delete-session';
import type { ClaimedSession, NewMessage, SessionRunnerDeps } from './runner-deps';
import { receivedOf, storeAttachments } from '../files/attachments';
import { stopRun } from './stop-run';

/** Set only by Zero's own edit and regenerate (`sessions/edit-message.ts`), after their checks; no request body carries it. */
export interface BranchRequest {
  branch_from?: number;
}

export interface AcceptedMessage {
  session: SessionMeta;
  runId: string;
  /** The event log's end when the message was accepted: the run's events come after it. */
  cursor: EventPosition;
  /**
   * The session's lease, when the message found the session idle and claimed
   * it: this process records the message and drives the run (`startChat`).
   * Without it the message waits in the inbox, already durable.
   */
  claimed?: ClaimedSession & { message: NewMessage };
}

/**
 * Accepts a message: checks the caller's role and the agent (a 4xx before
 * anything is written), then tries the session's lease at once. The first
 * message at an idle session claims it (one conditional write; a burst admits
 * exactly one) and goes straight into the log, recorded by the drive that
 * follows. At a busy session the strategy decides: `reject` refuses with a
 * 409, `interrupt` stops the active run, and the message waits in the inbox,
 * in arrival order, until the holder (or this process, once the lease is
 * free) answers it.
 */
export async function acceptMessage(deps: SessionRunnerDeps, request: ChatRequest & BranchRequest, user: User): Promise<AcceptedMessage> {
  // A client tool may not take the name of a tool Zero runs: the model could not tell them apart.
  request.client_tools?.forEach((tool, i) => {
    if (deps.tools.names().has(tool.name) || tool.name === PLAN_PROGRESS_TOOL) throw invalidField(`client_tools.${i}.name`, `"${tool.name}" is the name of one of Zero's tools`);
  });
  // Required tools are Zero's: a name it does not know is refused before anything is written.
  request.tools_required?.forEach((name, i) => {
    if (!deps.tools.names().has(name)) throw invalidField(`tools_required.${i}`, `"${name}" is not one of Zero's tools`);
  });
  // A suspended user, a spent budget, a session over its message rate: refused before anything is written.
  const admitted = admitMessage(deps, user.id, request.session_id);
  // The caller's role in an existing session is read meanwhile (reads only); a refused admission is the answer first.
  const access = request.session_id ? requireAccess(deps.sessions, request.session_id, user, 'editor') : undefined;
  access?.catch(() => undefined);
  await admitted;
  const existing = access ? (await access).session : undefined;
  // The agent the message names, else a new session's (the deployment's default): checked once, before anything is written (404 listing the agents).
  const agent = request.agent_id || !existing ? await requireAgent(deps.catalog, request.agent_id ?? deps.defaultAgentId) : undefined;
  // A new session's id (a fresh UUID: nobody else's), known before its attachments are stored and held by it.
  const freshId = existing ? undefined : randomUUID();
  // Attachments are checked against the model's limits and stored, held by the session (by its editor; before a new session is made).
  const attachments = request.attachments?.length
    ? await storeAttachments(deps.artifacts, user, receivedOf(request.attachments, 'attachments'), 'attachments', existing?.session_id ?? freshId!).catch((error: unknown) => {
        if (freshId) void releaseSessionBlobs(deps.artifacts, freshId).catch(() => undefined);
        throw error;
      })
    : undefined;
  const created = !existing;
  const runId = `run_${randomUUID()}`;
  // A new session's lease, taken while its items are written.
  let leased: ReturnType<typeof deps.leases.acquire> | undefined;
  let session: SessionMeta;
  if (existing) {
    session = existing;
  } else {
    leased = deps.leases.acquire(freshId!, deps.instanceId, runId, POSITION_BLOCKS);
    leased.catch(() => undefined);
    try {
      session = await createOwnedSession(deps, user, { ...request, agent_id: agent!.id, title: titleFrom(request.message) }, freshId!);
    } catch (error) {
      // The message is refused and nobody learns the new session's id: nothing of it is kept, its lease included.
      void leased
        .catch(() => undefined)
        .then(() => deps.sessions.deleteSession(freshId!))
        .then(() => releaseSessionBlobs(deps.artifacts, freshId!))
        .catch(() => undefined);
      throw error;
    }
  }
  const sessionId = session.session_id;
  const strategy = request.strategy ?? session.strategy ?? 'enqueue';
  const message: NewMessage = {
    run_id: runId,
    text: request.message,
    ...(attachments ? { attachments } : {}),
    author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
    agent_id: request.agent_id,
    project_id: request.project_id,
    voice_mode: request.voice_mode,
    model: request.model,
    ...(request.client_tools?.length ? { client_tools: request.client_tools } : {}),
    ...(request.plan_steps?.length ? { plan_steps: request.plan_steps } : {}),
    ...(request.max_tool_iterations ? { max_tool_iterations: request.max_tool_iterations } : {}),
    ...(request.complexity ? { complexity: request.complexity } : {}),
    ...(request.tools_required ? { tools_required: request.tools_required } : {}),
    ...(request.thinking !== undefined ? { thinking_budget: request.thinking === false ? 0 : request.thinking.budget_tokens } : {}),
    ...(request.outcome ? { outcome: outcomeOf(request.message, request.outcome) } : {}),
    ...(request.branch_from !== undefined ? { branch_from: request.branch_from } : {}),
    at: new Date().toISOString(),
  };

  const claimed = await (leased ?? deps.leases.acquire(sessionId, deps.instanceId, runId, POSITION_BLOCKS)).catch((error: unknown) => {
    if (strategy === 'reject') throw error;
    // The lease cannot be taken now: the message waits in the inbox, as at a busy session, and the drive that follows reports the failure.
    return undefined;
  });
  if (claimed) {
    // Every event position is handed out by the lease, so the counter it had before this holder's
    // reservation is the event log's end (the acquire itself may have reserved a block past it).
    const cursor = { seq: claimed.lease.inherited.event, index: Number.MAX_SAFE_INTEGER };
    return { session, runId, cursor, claimed: { ...claimed, session, created, message, strategy } };
  }
  if (strategy === 'reject') throw sessionBusy((await deps.leases.inspect(sessionId))?.run_id);
  const lease = strategy === 'interrupt' ? await deps.leases.inspect(sessionId) : undefined;
  const cursor = { seq: await deps.sessions.lastEventSeq(sessionId), index: Number.MAX_SAFE_INTEGER };
  await deps.sessions.enqueue(sessionId, message);
  if (lease?.active && lease.run_id) await stopRun(deps, sessionId, lease.run_id, 'interrupted');
  return { session, runId, cursor };
}

/** A chat's `outcome`: the message is the task; the grader's cycles start at 0. */
function outcomeOf(task: string, outcome: OutcomeRequest): OutcomeSpec {
  return { outcome_id: `outc_${randomUUID().replaceAll('-', '')}`, description: task, rubric: outcome.rubric, max_iterations: outcome.max_iterations ?? DEFAULT_OUTCOME_ITERATIONS, iteration: 0 };
}
