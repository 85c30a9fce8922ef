/**
 * Session threads (`client.beta.sessions.threads`) over Zero's delegation: a session's primary thread is the
 * session itself (its top-level runs); each delegated run (a `delegate_agent` call's child run) is a child thread.
 * A thread's id encodes its run's id (`<caller run id>:<tool call id>`), so threads need no storage of their own.
 */

/** The id of every session's primary thread. */
export const PRIMARY_THREAD_ID = 'sthr_primary';

/** The thread of a delegated run. */
export const threadIdOf = (runId: string) => `sthr_${Buffer.from(runId).toString('base64url')}`;

/** The thread of the run that delegated `runId`: its caller's own thread, or the primary thread for a top-level caller. */
export function parentThreadIdOf(runId: string): string {
  const caller = callerRunOf(runId);
  return caller && isDelegatedRun(caller) ? threadIdOf(caller) : PRIMARY_THREAD_ID;
}

/** The delegated run a thread id names, or undefined when it names none (the primary thread, or not an id Zero handed out). */
export function runIdOfThread(threadId: string): string | undefined {
  const match = /^sthr_([A-Za-z0-9_-]{1,800})$/.exec(threadId);
  if (!match || threadId === PRIMARY_THREAD_ID) return undefined;
  const runId = Buffer.from(match[1]!, 'base64url').toString();
  return isDelegatedRun(runId) && threadIdOf(runId) === threadId ? runId : undefined;
}

/** A delegated run's id is its caller's, a colon and the caller's tool call (run/delegate.ts); a top-level run's has no colon. */
export const isDelegatedRun = (runId: string) => runId.includes(':');

/** The run that delegated `runId` (undefined for a top-level run). */
export function callerRunOf(runId: string): string | undefined {
  const at = runId.lastIndexOf(':');
  return at < 0 ? undefined : runId.slice(0, at);
}
