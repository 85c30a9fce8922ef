import { historyToUIMessages, type ZeroUIMessage } from '@zero/agent/ui';
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
  return historyToUIMessages(detail.history, detail.queued);
}
