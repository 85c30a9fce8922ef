import { randomUUID } from 'node:crypto';
import { requireAgent } from '../agent/catalog';
import type { EventPosition } from '../events/ids';
import type { ChatRequest } from '../wire';
import { sessionBusy, type RunLease } from '../store/lease-store';
import type { InboxMessage, SessionMeta } from '../store/records';
import { POSITION_BLOCKS } from '../store/positions';
import type { User } from '../auth/roles';
import { requireAccess } from './access';
import { openSession, titleFrom } from './open-session';
import type { SessionRunnerDeps } from './runner-deps';
import { stopRun } from './stop-run';

export interface AcceptedMessage {
  session: SessionMeta;
  runId: string;
  messageId: number;
  /** The event log's end when the message was accepted: the run's events come after it. */
  cursor: EventPosition;
  /** The session's lease, when this message claimed the idle session (strategy `reject`): drive it with this. */
  claimed?: { lease: RunLease; takeover: boolean };
}

/**
 * Accepts a message: checks the caller's role and the agent (a 4xx before
 * anything is written), applies the session's strategy for a busy session,
 * and stores the message in the session's inbox, in arrival order.
 */
export async function acceptMessage(deps: SessionRunnerDeps, request: ChatRequest, user: User): Promise<AcceptedMessage> {
  const now = new Date().toISOString();
  let session: SessionMeta;
  if (request.session_id) {
    session = (await requireAccess(deps.sessions, request.session_id, user, 'editor')).session;
    if (request.agent_id) await requireAgent(deps.catalog, request.agent_id);
  } else {
    session = await openSession(deps, user, { ...request, title: titleFrom(request.message) });
  }
  const sessionId = session.session_id;
  const strategy = request.strategy ?? session.strategy ?? 'enqueue';
  const runId = `run_${randomUUID()}`;
  // `reject` admits a message only into an idle session, and the first one admitted claims it (a conditional
  // write on the lease), so a burst at an idle session admits exactly one.
  const claimed = strategy === 'reject' ? await deps.leases.acquire(sessionId, deps.instanceId, runId, POSITION_BLOCKS) : undefined;
  if (strategy === 'reject' && !claimed) throw sessionBusy((await deps.leases.inspect(sessionId))?.run_id);
  const lease = strategy === 'interrupt' ? await deps.leases.inspect(sessionId) : undefined;

  let cursor: EventPosition;
  let message: InboxMessage;
  try {
    cursor = { seq: await deps.sessions.lastEventSeq(sessionId), index: Number.MAX_SAFE_INTEGER };
    message = await deps.sessions.enqueue(sessionId, {
      run_id: runId,
      text: request.message,
      author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
      agent_id: request.agent_id,
      project_id: request.project_id,
      voice_mode: request.voice_mode,
      model: request.model,
      at: now,
    });
  } catch (error) {
    if (claimed) await deps.leases.release(claimed.lease).catch(() => undefined);
    throw error;
  }
  if (lease?.active && lease.run_id) await stopRun(deps, sessionId, lease.run_id, 'interrupted');
  return { session, runId, messageId: message.message_id, cursor, ...(claimed ? { claimed } : {}) };
}
