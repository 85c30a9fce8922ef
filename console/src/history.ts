import type { UIMessage } from 'ai';
import type { HistoryRecord, SessionDetail, UIDataTypes, UIMessageMetadata } from '@zero/core/wire';

/** What the console keeps on each message beside its parts: the stream's metadata, and a failed run's error. */
export type ConsoleMetadata = UIMessageMetadata & { error?: { code: string; message: string } };

export type ConsoleMessage = UIMessage<ConsoleMetadata, UIDataTypes>;

/** The id of a run's user message; its answer's id is the run id (as the UI message stream's `start` says). */
export const userMessageId = (runId: string) => `${runId}:user`;

/**
 * Rebuilds the chat from the session's stored history, in the shapes the UI
 * message stream produces, so a run streamed live and the same run reloaded
 * look alike and a resumed stream replaces its message in place.
 */
export function historyToMessages(detail: SessionDetail): ConsoleMessage[] {
  const messages: ConsoleMessage[] = [];
  const answers = new Map<string, ConsoleMessage>();
  const answerFor = (record: HistoryRecord) => {
    let answer = answers.get(record.run_id);
    if (!answer) {
      answer = { id: record.run_id, role: 'assistant', parts: [], metadata: { run_id: record.run_id } };
      answers.set(record.run_id, answer);
      messages.push(answer);
    }
    return answer;
  };
  const settle = (answer: ConsoleMessage, result: { tool_use_id: string; content: string; is_error?: boolean }) => {
    const index = answer.parts.findIndex((p) => 'toolCallId' in p && p.toolCallId === result.tool_use_id);
    const part = answer.parts[index] as { type: string; toolCallId: string; input: unknown } | undefined;
    if (!part) return;
    answer.parts[index] = (
      result.is_error ? { ...part, state: 'output-error', errorText: result.content } : { ...part, state: 'output-available', output: result.content }
    ) as ConsoleMessage['parts'][number];
  };
  for (const record of detail.history) {
    // A delegate's own steps show as the delegate_agent call's result in its parent's answer.
    if (record.parent_run_id) continue;
    switch (record.kind) {
      case 'user_message':
        messages.push({ id: userMessageId(record.run_id), role: 'user', parts: [{ type: 'text', text: record.text }], metadata: { author: record.author } });
        break;
      case 'assistant': {
        const answer = answerFor(record);
        answer.metadata = { ...answer.metadata, agent_id: record.agent_id };
        answer.parts.push({ type: 'step-start' });
        for (const block of record.content) {
          if (block.type === 'text' && typeof block.text === 'string' && block.text) answer.parts.push({ type: 'text', text: block.text, state: 'done' });
          else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
            answer.parts.push({ type: `tool-${String(block.name)}`, toolCallId: String(block.id), state: 'input-available', input: block.input } as ConsoleMessage['parts'][number]);
          }
        }
        break;
      }
      case 'tool_results': {
        const answer = answerFor(record);
        for (const result of record.results) settle(answer, result);
        break;
      }
      case 'tool_result':
        settle(answerFor(record), record);
        break;
      case 'run_end': {
        const answer = answerFor(record);
        answer.metadata = { ...answer.metadata, status: record.status, usage: record.usage, ...(record.error ? { error: record.error } : {}) };
        break;
      }
    }
  }
  for (const waiting of detail.queued) {
    messages.push({ id: userMessageId(waiting.run_id), role: 'user', parts: [{ type: 'text', text: waiting.text }], metadata: { author: waiting.author, queued: true } });
  }
  return messages;
}
