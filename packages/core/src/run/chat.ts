import { randomUUID } from 'node:crypto';
import { requireAgent } from '../agent/catalog';
import { followSession } from '../events/feed';
import type { EventPosition } from '../events/ids';
import type { IdentifiedEvent } from '../events/recorder';
import type { ChatRequest } from '../events/schema';
import { sessionBusy } from '../store/lease-store';
import type { LogRecord, SessionMeta } from '../store/records';
import { requireAccess, type User } from '../sessions/access';
import { driveSession, unfinishedRun, type DriveOptions, type SessionRunnerDeps } from './session-runner';

export type ChatDeps = SessionRunnerDeps;
export type { IdentifiedEvent };

export interface AcceptedMessage {
  session: SessionMeta;
  runId: string;
  messageId: number;
  /** The event log's end when the message was accepted: the run's events come after it. */
  cursor: EventPosition;
}

/**
 * Accepts a message: checks the caller's role and the agent (a 4xx before
 * anything is written), applies the session's strategy for a busy session,
 * and stores the message in the session's inbox, in arrival order.
 */
export async function acceptMessage(deps: ChatDeps, request: ChatRequest, user: User): Promise<AcceptedMessage> {
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
  const lease = await deps.leases.inspect(sessionId);
  if (strategy === 'reject' && lease?.active) throw sessionBusy(lease.run_id);

  const cursor = { seq: await deps.sessions.lastEventSeq(sessionId), index: Number.MAX_SAFE_INTEGER };
  const runId = `run_${randomUUID()}`;
  const message = await deps.sessions.enqueue(sessionId, {
    run_id: runId,
    text: request.message,
    author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
    agent_id: request.agent_id,
    project_id: request.project_id,
    voice_mode: request.voice_mode,
    model: request.model,
    at: now,
  });
  if (strategy === 'interrupt' && lease?.active && lease.run_id) await stopRun(deps, sessionId, lease.run_id, 'interrupted');
  return { session, runId, messageId: message.message_id, cursor };
}

/** Asks a run to stop at its next safe point, wherever it runs. */
export async function stopRun(deps: ChatDeps, sessionId: string, runId: string, reason: 'cancelled' | 'interrupted'): Promise<boolean> {
  const local = deps.runs.stop(runId, reason === 'cancelled' ? 'cancelled by request' : 'interrupted by a new message');
  const remote = await deps.leases.requestStop(sessionId, { run_id: runId, reason });
  return local || remote;
}

/**
 * Makes sure an accepted message gets answered: drives the session here, or,
 * while another process holds the lease, waits for it to take the message or
 * for its lease to expire (a dead holder) and then drives the session itself.
 */
export async function ensureAnswered(deps: ChatDeps, sessionId: string, messageId: number, options: DriveOptions & { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  for (;;) {
    await driveSession(deps, sessionId, options);
    const waiting = await deps.sessions.peekInbox(sessionId, 50);
    if (!waiting.some((m) => m.message_id === messageId) || signal?.aborted) return;
    const lease = await deps.leases.inspect(sessionId);
    const wait = lease?.active ? Math.min(1000, Math.max(50, lease.until - Date.now())) : 50;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export interface ChatRun extends AcceptedMessage {
  /** Follows the run's events, ending with its `done`. */
  events(signal?: AbortSignal): AsyncGenerator<IdentifiedEvent>;
  /** Settles when this process has nothing more to do for the session. */
  finished: Promise<void>;
}

/** Accepts a message and follows the run that answers it (until its `done`, or its `handover` to the background). */
export async function startChat(deps: ChatDeps, request: ChatRequest, user: User, options: DriveOptions = {}): Promise<ChatRun> {
  const accepted = await acceptMessage(deps, request, user);
  const sessionId = accepted.session.session_id;
  const finished = ensureAnswered(deps, sessionId, accepted.messageId, options).catch((error) => {
    console.error(JSON.stringify({ level: 'error', msg: 'session run failed', session_id: sessionId, error: String(error) }));
  });
  async function* events(signal?: AbortSignal): AsyncGenerator<IdentifiedEvent> {
    // The run's own events and those of the child runs it delegated to (each child's first event names its parent).
    const runs = new Set([accepted.runId]);
    for await (const event of followSession(deps, sessionId, { after: accepted.cursor, signal })) {
      if (!('run_id' in event) || !event.run_id) continue;
      if ('parent_run_id' in event && event.parent_run_id && runs.has(event.parent_run_id)) runs.add(event.run_id);
      if (!runs.has(event.run_id)) continue;
      yield event;
      if ((event.type === 'done' || event.type === 'handover') && event.run_id === accepted.runId) return;
    }
  }
  return { ...accepted, events, finished };
}

/**
 * Sends the session to the queue when its log shows a run that no process is
 * carrying on (its holder died): any request on the session wakes it up.
 */
export async function resumeIfStalled(deps: ChatDeps, sessionId: string, history?: readonly LogRecord[]): Promise<boolean> {
  const lease = await deps.leases.inspect(sessionId);
  if (lease?.active) return false;
  const log = history ?? (await deps.sessions.readLogTail(sessionId, 50));
  if (!unfinishedRun(log)) return false;
  await deps.queue.send({ session_id: sessionId, reason: 'resume an unfinished run' });
  return true;
}

/** What a new session may be opened with; the agent defaults to the deployment's. */
export interface NewSession {
  session_id?: string;
  title: string;
  agent_id?: string;
  project_id?: string;
  voice_mode?: SessionMeta['voice_mode'];
  strategy?: SessionMeta['strategy'];
}

/** Opens a session owned by `user`, after checking the agent (404 listing the agents). */
export async function openSession(deps: ChatDeps, user: User, fields: NewSession): Promise<SessionMeta> {
  const agent = await requireAgent(deps.catalog, fields.agent_id ?? deps.defaultAgentId);
  const now = new Date().toISOString();
  return deps.sessions.createSession(
    {
      session_id: fields.session_id ?? randomUUID(),
      title: fields.title,
      agent_id: agent.id,
      project_id: fields.project_id,
      voice_mode: fields.voice_mode,
      strategy: fields.strategy,
      created_by: user.id,
      created_at: now,
      updated_at: now,
    },
    { user_id: user.id, name: user.name },
  );
}

/** A session's title from its first message: the first line, at most 80 characters. */
export function titleFrom(message: string): string {
  const line = message.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
