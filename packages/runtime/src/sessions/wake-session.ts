import type { InboxMessage, LogRecord } from '../store/records';
import { expireApprovals } from './decide-approval';
import { resumeIfStalled } from './resume';
import type { SessionRunnerDeps } from './runner-deps';

/** How much of the log's tail a read that has none in hand looks at: enough for a waiting run's calls and an unfinished run's start. */
const TAIL = 200;

/**
 * What every read of a session does first, at every door (`/api/v2`, `/v1`):
 * calls that waited past the approval time are denied, and a session that no
 * process carries on although it has work (its holder died: a run the log
 * shows unfinished, messages in its inbox) goes to the queue. A reader that
 * already read the log (or the inbox) passes it in `seen`, so this costs no
 * second read. Returns the log as it is afterwards (the tail read here when
 * none was passed). Throws only when the store fails.
 */
export async function wakeSession(
  deps: SessionRunnerDeps,
  sessionId: string,
  seen: { history?: readonly LogRecord[]; waiting?: readonly InboxMessage[] } = {},
): Promise<readonly LogRecord[]> {
  const read = seen.history ?? (await deps.sessions.readLogTail(sessionId, TAIL));
  const history = (await expireApprovals(deps, sessionId, read)) ? (seen.history ? await deps.sessions.readLog(sessionId) : await deps.sessions.readLogTail(sessionId, TAIL)) : read;
  await resumeIfStalled(deps, sessionId, { history, waiting: seen.waiting });
  return history;
}
