import { ZeroError, forbidden } from '@zero/agent/errors';
import type { LogRecord } from '@zero/agent/records/log-record';
import type { ChatRequest } from '@zero/agent/wire';
import type { User } from '../auth/roles';
import { requireAccess } from './access';
import type { DriveOptions } from './drive';
import { startChat, type ChatDeps, type ChatRun } from './start-chat';

type UserMessage = Extract<LogRecord, { kind: 'user_message' }>;

/**
 * Edits a past message (`text`) or regenerates the answer to the last one (no
 * `text`): the session branches in place. The new message is recorded with
 * `branch_from`, the record before the one edited, so the active branch goes
 * on from there; the earlier branch stays stored and readable. Only an editor
 * who wrote the message, or an owner, may (others: 403). The branch is an
 * ordinary run: everyone following the session sees its `message` event,
 * which carries `branch_from`.
 */
export async function editMessage(
  deps: ChatDeps,
  user: User,
  sessionId: string,
  target: {
    /** The message's history record; or its run (a `useChat` message id names the run); neither: the last message. */
    seq?: number;
    runId?: string;
    /** The new text; none: the message as it was (a regenerate). */
    text?: string;
    /** What the new message asks for besides its text: its files, its model and thinking (none: the agent's). */
    with?: Pick<ChatRequest, 'attachments' | 'model' | 'thinking'>;
  },
  options: DriveOptions = {},
): Promise<ChatRun> {
  const { member } = await requireAccess(deps.sessions, sessionId, user, 'editor');
  const history = await deps.sessions.readLog(sessionId);
  const messages = history.filter((r): r is UserMessage => r.kind === 'user_message' && !r.parent_run_id);
  const record =
    target.seq !== undefined ? messages.find((r) => r.seq === target.seq) : target.runId !== undefined ? messages.find((r) => r.run_id === target.runId) : messages.at(-1);
  if (!record) {
    if (target.seq !== undefined) throw new ZeroError('not_found', `history record ${target.seq} is not a message of the session's active branch`, { field: 'seq' });
    if (target.runId !== undefined) throw new ZeroError('not_found', `run "${target.runId}" has no message in the session's active branch`, { field: 'messageId' });
    throw new ZeroError('invalid_request', 'the session has no message to regenerate an answer to');
  }
  if (record.author?.id !== user.id && member.role !== 'owner') throw forbidden("only the message's author or an owner may edit it or regenerate its answer");
  const before = history[history.indexOf(record) - 1];
  return startChat(deps, { ...target.with, session_id: sessionId, message: target.text ?? record.text, branch_from: before?.seq ?? 0 }, user, options);
}
