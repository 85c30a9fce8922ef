import { randomUUID } from 'node:crypto';
import { followSession } from './feed';
import { messageWhileWaiting } from './decide-approval';
import { formatEventId, parseEventId, type EventPosition } from '@zero/agent/events/ids';
import type { IdentifiedEvent } from '@zero/agent/events/recorder';
import type { ChatRequest } from '@zero/agent/wire';
import type { BranchRequest } from './accept-message';
import { zeroUsage } from '@zero/agent/events/usage';
import { describeFailure } from '@zero/agent/loop/end-run';
import type { User } from '../auth/roles';
import { acceptMessage, type AcceptedMessage } from './accept-message';
import { admitMessage } from './admit-message';
import { unfinishedRun } from './resume';
import { driveSession, type ClaimedSession, type DriveOptions, type NewMessage, type SessionRunnerDeps } from './drive';
import { errorText, log } from '@zero/agent/log/log';
import { doneOfEnd } from '@zero/agent/records/done';

export type ChatDeps = SessionRunnerDeps;
export type { IdentifiedEvent };

/**
 * Makes sure a message waiting in the inbox gets answered: drives the session
 * here, or, while another process holds the lease, waits for it to take the
 * message or for its lease to expire (a dead holder) and then drives the
 * session itself.
 */
export async function ensureAnswered(deps: ChatDeps, sessionId: string, runId: string, options: DriveOptions & { signal?: AbortSignal } = {}): Promise<'behind_waiting_run' | void> {
  const { signal, claimed: _claimed, ...drive } = options;
  for (;;) {
    await driveSession(deps, sessionId, drive);
    const waiting = await deps.sessions.peekInbox(sessionId, 50);
    if (!waiting.some((m) => m.run_id === runId) || signal?.aborted) return;
    // Behind a run that waits for a person: the decision that carries the session on answers the message.
    if (unfinishedRun(await deps.sessions.readLogTail(sessionId, 50))?.waiting) return 'behind_waiting_run';
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

/**
 * Accepts a message and follows the run that answers it (until its `done`, or
 * its `handover` to the background). Resolves once the message is durable
 * (in the session's log or its inbox): a caller that acknowledges it then
 * never acknowledges a message that a crash could lose.
 */
export async function startChat(deps: ChatDeps, request: ChatRequest & BranchRequest, user: User, options: DriveOptions = {}): Promise<ChatRun> {
  const accepted = await acceptMessage(deps, request, user);
  const sessionId = accepted.session.session_id;
  const { drive } = accepted.claimed ? await driveClaimed(deps, accepted.claimed, options) : { drive: ensureAnswered(deps, sessionId, accepted.runId, options) };
  const finished = drive.then(
    () => undefined,
    (error) => {
      log.error('session run failed', { session_id: sessionId, error: errorText(error) });
    },
  );
  // Settles only when driving the session here failed: nothing more will come from this process then.
  const failed = drive.then(
    () => new Promise<never>(() => undefined),
    (error: unknown) => ({ failed: error }),
  );
  // Settles when the message waits in the inbox behind a run that waits for a person: no stream is held open meanwhile.
  const parked = drive.then(
    (outcome) => (outcome === 'behind_waiting_run' ? { parked: true as const } : new Promise<never>(() => undefined)),
    () => new Promise<never>(() => undefined),
  );
  async function* events(signal?: AbortSignal): AsyncGenerator<IdentifiedEvent> {
    // The run's own events and those of the child runs it delegated to (each child's first event names its parent).
    const runs = new Set([accepted.runId]);
    const follow = new AbortController();
    const stop = () => follow.abort();
    signal?.addEventListener('abort', stop, { once: true });
    // A run this process drives: its events come from its recorder, without a read of the event log first.
    const feed = followSession(deps, sessionId, { after: accepted.cursor, signal: follow.signal, ...(accepted.claimed ? { localRun: accepted.runId } : {}) });
    let last = accepted.cursor;
    let watching = true;
    let pending = feed.next();
    try {
      for (;;) {
        const next = await (watching ? Promise.race([pending, failed, parked]) : pending);
        if ('parked' in next) {
          yield parkedBehindWait(sessionId, accepted.runId, last);
          return;
        }
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

/**
 * Drives a session whose lease the message claimed, and returns (the drive
 * going on) once the message is durable: recorded as the first record of its
 * run, or put in the inbox behind a run the log shows unfinished. If the
 * drive stops before that, the inbox takes the message, as at a busy session;
 * when the store refuses that too, nothing was acknowledged: the error goes
 * to the caller.
 */
async function driveClaimed(deps: ChatDeps, claimed: ClaimedSession & { message: NewMessage }, options: DriveOptions): Promise<{ drive: Promise<void | 'behind_waiting_run'> }> {
  const sessionId = claimed.lease.sessionId;
  const runId = claimed.message.run_id;
  let stored: 'log' | 'inbox' | undefined;
  let durable!: () => void;
  const isDurable = new Promise<void>((resolve) => (durable = resolve));
  const onDurable = (where: 'log' | 'inbox') => {
    stored = where;
    durable();
  };
  const drive = driveSession(deps, sessionId, { ...options, claimed: { ...claimed, onDurable } });
  await Promise.race([isDurable, drive.catch(() => undefined)]);
  if (stored === 'log') return { drive };
  if (!stored) await deps.sessions.enqueue(sessionId, claimed.message);
  // A failed drive stays failed (its readers are told); the message waits in the inbox for a later drive.
  return { drive: drive.then(() => ensureAnswered(deps, sessionId, runId, options)) };
}

/**
 * The end of a message's stream while it waits in the inbox behind a run that waits for a person's
 * decision: a `handover` (the run will happen elsewhere, later), so nothing is held open while people
 * think. Its id is the last event the reader had: following the session's events from it misses nothing.
 */
function parkedBehindWait(sessionId: string, runId: string, last: EventPosition): IdentifiedEvent {
  const event_id = last.index === Number.MAX_SAFE_INTEGER ? String(last.seq) : formatEventId(last);
  const reason = "the message waits behind a run that waits for a person's decision; it is answered once that run goes on: follow the session's events";
  return { type: 'handover', session_id: sessionId, run_id: runId, reason, event_id };
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
  yield { ...doneOfEnd({ run_id: runId, status: 'error', steps: 0, usage: zeroUsage(), reason }), event_id };
}

/**
 * Accepts a message for a background run: into the session's inbox, and the session to the run
 * queue (SQS in AWS, in-process locally), so the caller answers at once and the run goes on in the
 * worker. Admitted as every message is (`admitMessage`); overdue approvals expire first; behind a run
 * that waits for a person the message waits its turn.
 */
export async function queueMessage(deps: ChatDeps, sessionId: string, message: Omit<NewMessage, 'run_id' | 'at'> & Required<Pick<NewMessage, 'author'>>): Promise<string> {
  await admitMessage(deps, message.author.id, sessionId);
  const runId = `run_${randomUUID()}`;
  await messageWhileWaiting(deps, sessionId, 'enqueue');
  await deps.sessions.enqueue(sessionId, { ...message, run_id: runId, at: new Date().toISOString() });
  await deps.queue.send({ session_id: sessionId, reason: 'a message to answer in the background' });
  return runId;
}
