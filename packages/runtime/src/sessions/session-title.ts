import type { LogRecord } from '../store/records';
import { titleFrom } from './open-session';

/*
 * A new session's short title: once its first exchange is complete, one call to the deployment's light
 * tier names it in a few words (`titleOf`, @zero/agent/loop/session-title), in place of the first line of
 * its first message. When the call fails, or the budget is spent, the session keeps the title it had.
 */

/** The first exchange of a session, when `runId` is the run that answered its first message and the session still has that message's title. */
export function firstExchange(history: readonly LogRecord[], runId: string, title: string): { question: string; answer: string } | undefined {
  const top = history.filter((r) => !r.parent_run_id);
  const first = top.find((r): r is Extract<LogRecord, { kind: 'user_message' }> => r.kind === 'user_message');
  if (!first || first.run_id !== runId || title !== titleFrom(first.text)) return undefined;
  const answer = top
    .filter((r): r is Extract<LogRecord, { kind: 'assistant' }> => r.kind === 'assistant' && r.run_id === runId)
    .flatMap((r) => (r.content as { type: string; text?: string }[]).flatMap((block) => (block.type === 'text' && block.text ? [block.text] : [])))
    .join('\n')
    .trim();
  return { question: first.text, answer };
}
