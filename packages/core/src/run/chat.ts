import { randomUUID } from 'node:crypto';
import { requireAgent } from '../agent/catalog';
import { followSession } from '../events/feed';
import { formatEventId, parseEventId, type EventPosition } from '../events/ids';
import type { IdentifiedEvent } from '../events/recorder';
import type { ChatRequest } from '../wire';
import { zeroUsage } from '../events/usage';
import { sessionBusy, type RunLease } from '../store/lease-store';
import type { InboxMessage, LogRecord, SessionMeta } from '../store/records';
import { requireAccess, type User } from '../sessions/access';
import { describeFailure } from './end-run';
import { driveSession, unfinishedRun, type DriveOptions, type SessionRunnerDeps } from './session-runner';

export type ChatDeps = SessionRunnerDeps;
export type { IdentifiedEvent };

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
  const runId = `run_${randomUUID()}`;
  // `reject` admits a message only into an idle session, and the first one admitted claims it (a conditional
  // write on the lease), so a burst at an idle session admits exactly one.
  const claimed = strategy === 'reject' ? await deps.leases.acquire(sessionId, deps.instanceId, runId) : undefined;
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
  let claimed = options.claimed;
  for (;;) {
    await driveSession(deps, sessionId, { ...options, claimed });
    claimed = undefined;
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
  const drive = ensureAnswered(deps, sessionId, accepted.messageId, { ...options, claimed: accepted.claimed });
  const finished = drive.catch((error) => {
    console.error(JSON.stringify({ level: 'error', msg: 'session run failed', session_id: sessionId, error: String(error) }));
  });
  // Settles only when driving the session here failed: nothing more will come from this process then.
  const failed = drive.then(
    () => new Promise<never>(() => undefined),
    (error: unknown) => ({ failed: error }),
  );
  async function* events(signal?: AbortSignal): AsyncGenerator<IdentifiedEvent> {
    // The run's own events and those of the child runs it delegated to (each child's first event names its parent).
    const runs = new Set([accepted.runId]);
    const follow = new AbortController();
    const stop = () => follow.abort();
    signal?.addEventListener('abort', stop, { once: true });
    const feed = followSession(deps, sessionId, { after: accepted.cursor, signal: follow.signal });
    let last = accepted.cursor;
    let watching = true;
    let pending = feed.next();
    try {
      for (;;) {
        const next = await (watching ? Promise.race([pending, failed]) : pending);
        if ('failed' in next) {
          const ended = deps.runs.endedHere(accepted.runId);
          // The run ended here and its events are in the event log: read on to its `done`.
          if (ended && !ended.unwritten) {
            watching = false;
            continue;
          }
          // Its last events are only in memory (the store failed), or it never started: end the stream here.
          yield* ended?.unwritten ? unwrittenEvents(ended.unwritten.eventsAfter(last), runs) : driveFailed(accepted.runId, last, next.failed, deps.secrets);
          return;
        }
        if (next.done) return;
        pending = feed.next();
        const event = next.value;
        last = parseEventId(event.event_id) ?? last;
        if (!('run_id' in event) || !event.run_id) continue;
        if ('parent_run_id' in event && event.parent_run_id && runs.has(event.parent_run_id)) runs.add(event.run_id);
        if (!runs.has(event.run_id)) continue;
        yield event;
        if ((event.type === 'done' || event.type === 'handover') && event.run_id === accepted.runId) return;
      }
    } finally {
      follow.abort();
      signal?.removeEventListener('abort', stop);
      // The feed ends on its own once aborted; a read it has under way may still be settling.
      void pending.then(() => feed.return(undefined)).catch(() => undefined);
    }
  }
  return { ...accepted, events, finished };
}

/** A failed run's events that only this process holds, after what the reader has seen. */
function* unwrittenEvents(events: readonly (IdentifiedEvent & { position: EventPosition })[], runs: Set<string>): Generator<IdentifiedEvent> {
  for (const { position: _position, ...event } of events) {
    if (!('run_id' in event) || !event.run_id) continue;
    if ('parent_run_id' in event && event.parent_run_id && runs.has(event.parent_run_id)) runs.add(event.run_id);
    if (runs.has(event.run_id)) yield event as IdentifiedEvent;
  }
}

/**
 * The ending of a run that could not start because driving its session failed
 * (the store refused before the run had a place in the event log). The message
 * stays in the inbox; a later read of the session or the worker answers it.
 */
function* driveFailed(runId: string, last: EventPosition, error: unknown, secrets: readonly string[] = []): Generator<IdentifiedEvent> {
  const described = describeFailure(error, secrets);
  // These events have no place in the event log: they repeat the id of the last event the reader had.
  const event_id = last.index === Number.MAX_SAFE_INTEGER ? String(last.seq) : formatEventId(last);
  yield { type: 'error', ...described, run_id: runId, event_id };
  const reason = `the run could not start: ${described.message}`;
  yield { type: 'done', run_id: runId, status: 'error', steps: 0, usage: zeroUsage(), reason, event_id };
}

/**
 * Sends the session to the queue when no process is carrying it on (no live
 * lease) although it has work: a run its log shows unfinished (its holder
 * died), or messages waiting in its inbox (the process that accepted them
 * died before it recorded them). Any read of the session wakes it up.
 */
export async function resumeIfStalled(deps: ChatDeps, sessionId: string, seen: { history?: readonly LogRecord[]; waiting?: readonly InboxMessage[] } = {}): Promise<boolean> {
  const lease = await deps.leases.inspect(sessionId);
  if (lease?.active) return false;
  const waiting = seen.waiting ?? (await deps.sessions.peekInbox(sessionId, 1));
  if (waiting.length === 0 && !unfinishedRun(seen.history ?? (await deps.sessions.readLogTail(sessionId, 50)))) return false;
  await deps.queue.send({ session_id: sessionId, reason: waiting.length ? 'answer waiting messages' : 'resume an unfinished run' });
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
