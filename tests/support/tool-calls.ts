import type { LogRecord } from '@zero/runtime/store/items/log-record';
import type { Harness } from './harness';
import { chatStream, type ReceivedEvent } from './sse';

/** The tool_result block the model was sent for a call, in the fake model's last request. */
export function resultSeenByModel(h: Harness, toolCallId: string): { content: string; is_error?: boolean } | undefined {
  const messages = h.fake.requests.at(-1)?.body.messages ?? [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    const block = (message.content as { type: string; tool_use_id?: string }[]).find((b) => b.type === 'tool_result' && b.tool_use_id === toolCallId);
    if (block) return block as unknown as { content: string; is_error?: boolean };
  }
  return undefined;
}

let calls = 0;

/**
 * Has the fake model call one tool in a chat (`session_id` to continue a session, else a new one
 * of `agent_id` on `project_id`), then answer "done". Returns what the model was sent back for the
 * call, the stream's events and the session's log.
 */
export async function modelCalls(h: Harness, name: string, input: unknown, chat: Record<string, unknown>) {
  const id = `toolu_call_${++calls}`;
  h.fake.script({ toolCalls: [{ id, name, input }] }, { text: 'done' });
  const { events } = await chatStream(h.url, { message: `please run ${name}`, ...chat });
  const start = events.find((e) => e.type === 'start') as Extract<ReceivedEvent, { type: 'start' }> | undefined;
  const sessionId = start?.session_id ?? String(chat.session_id);
  const log: LogRecord[] = await h.server.runtime.sessions.readLog(sessionId);
  return { id, result: resultSeenByModel(h, id), events, sessionId, log };
}
