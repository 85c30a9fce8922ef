import type { InboxMessage, LogRecord } from '../store/records';
import type { SessionStore } from '../store/session-store';
import type { SessionRunnerDeps } from './runner-deps';
import { waitingRun } from './approvals';

/**
 * The run the log shows as begun but not ended (its process died, it handed
 * over, or it waits for approvals), if any. `waiting`: some call it waits for
 * is undecided; nothing carries it on until then, and messages wait behind it.
 */
export function unfinishedRun(history: readonly LogRecord[]): { runId: string; message: Extract<LogRecord, { kind: 'user_message' }>; waiting: boolean } | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!;
    // Child runs (delegated tasks) are carried on by their parent.
    if (record.kind === 'void' || record.parent_run_id) continue;
    if (record.kind === 'run_end') return undefined;
    if (record.kind === 'user_message') return { runId: record.run_id, message: record, waiting: waitingRun(history)?.runId === record.run_id };
  }
  return undefined;
}

/** The id of the session's last run when the log shows it unfinished and not waiting for approvals (a cheap look at the log's tail). */
export async function lastRunIfOpen(deps: { sessions: SessionStore }, sessionId: string): Promise<string | undefined> {
  const tail = await deps.sessions.readLogTail(sessionId, 50);
  // A long step may push its user message out of the tail: look further only when the tail shows no ending.
  const open = unfinishedRun(tail) ?? (tail.length === 50 && !tail.some((r) => r.kind === 'run_end') ? unfinishedRun(await deps.sessions.readLog(sessionId)) : undefined);
  return open && !open.waiting ? open.runId : undefined;
}

/**
 * Sends the session to the queue when no process is carrying it on (no live
 * lease) although it has work: a run its log shows unfinished (its holder
 * died), messages waiting in its inbox (the process that accepted them
 * died before it recorded them), or a lease its holder never released (it
 * died, maybe between storing a run's end and writing its `done`: the
 * takeover restores the events the log implies). Any read of the session
 * wakes it up.
 */
export async function resumeIfStalled(deps: Pick<SessionRunnerDeps, 'leases' | 'sessions' | 'queue'>, sessionId: string, seen: { history?: readonly LogRecord[]; waiting?: readonly InboxMessage[] } = {}): Promise<boolean> {
  const lease = await deps.leases.inspect(sessionId);
  if (lease?.active) return false;
  if (lease?.abandoned) {
    await deps.queue.send({ session_id: sessionId, reason: 'take over from a holder that died' });
    return true;
  }
  const waiting = seen.waiting ?? (await deps.sessions.peekInbox(sessionId, 1));
  const open = unfinishedRun(seen.history ?? (await deps.sessions.readLogTail(sessionId, 50)));
  // A run that waits for a person holds its messages back: a decision carries the session on.
  if (open?.waiting || (waiting.length === 0 && !open)) return false;
  await deps.queue.send({ session_id: sessionId, reason: waiting.length ? 'answer waiting messages' : 'resume an unfinished run' });
  return true;
}
