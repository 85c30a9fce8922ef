import { historyToUIMessages, userMessageId as userMessageIdOf, type ZeroUIMessage } from '@zero/agent/ui';
import type { SessionDetail } from '@zero/agent/wire';

export { userMessageId } from '@zero/agent/ui';

/** A chat message as the console holds it: Zero's metadata (a failed run's error included) and data parts. */
export type ConsoleMessage = ZeroUIMessage;

/**
 * Rebuilds the chat from the session's stored history, in the shapes the UI
 * message stream produces, so a run streamed live and the same run reloaded
 * look alike and a resumed stream replaces its message in place.
 */
export function historyToMessages(detail: SessionDetail): ConsoleMessage[] {
  const messages = historyToUIMessages(detail.history, detail.queued);
  // A message's images and PDFs as file parts whose url is the API path of each (read with the key, see FilePreview).
  for (const record of detail.history) {
    if (record.kind !== 'user_message' || !record.attachments?.length) continue;
    const message = messages.find((m) => m.id === userMessageIdOf(record.run_id));
    for (const a of record.attachments) {
      message?.parts.push({ type: 'file', mediaType: a.media_type, ...(a.filename ? { filename: a.filename } : {}), url: `/sessions/${detail.session.session_id}/attachments/${a.sha256}` });
    }
  }
  // Each graded answer's grade and the grader's reasons, under the answer as the stream left them.
  for (const { run_id, ...grade } of detail.outcome_grades ?? []) {
    messages.find((m) => m.id === run_id && m.role === 'assistant')?.parts.push({ type: 'data-outcome', id: `outcome-${run_id}`, data: grade });
  }
  return messages;
}
