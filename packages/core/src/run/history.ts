import type { ContentBlockParam, MessageParam } from '../model/provider';
import type { LogRecord } from '../store/records';

/**
 * Rebuilds the model conversation from the session log. Consecutive turns of
 * one role are merged, and a tool call whose result was never recorded (a run
 * that died mid-step) is answered with an error result, so the history the
 * model sees is always well formed.
 *
 * Without `runId` this is the session's conversation: records of child runs
 * (delegated tasks, tagged `parent_run_id`) are left out, since their answers
 * reach it as tool results. With `runId` it is that one run's conversation,
 * e.g. a child run's task and its steps, to resume it.
 */
export function toMessages(all: readonly LogRecord[], options: { runId?: string } = {}): MessageParam[] {
  const records = options.runId ? all.filter((r) => r.run_id === options.runId) : all.filter((r) => !r.parent_run_id);
  const messages: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', content: ContentBlockParam[]) => {
    if (content.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) (last.content as ContentBlockParam[]).push(...content);
    else messages.push({ role, content: [...content] });
  };

  let pendingToolUses: string[] = [];
  const closePending = () => {
    if (pendingToolUses.length === 0) return;
    push(
      'user',
      pendingToolUses.map((id) => ({
        type: 'tool_result' as const,
        tool_use_id: id,
        content: 'This tool call was interrupted before it returned a result.',
        is_error: true,
      })),
    );
    pendingToolUses = [];
  };

  for (const record of records) {
    switch (record.kind) {
      case 'user_message':
        closePending();
        push('user', [{ type: 'text', text: record.author?.name ? `[${record.author.name}] ${record.text}` : record.text }]);
        break;
      case 'assistant': {
        closePending();
        const content = record.content as unknown as ContentBlockParam[];
        push('assistant', content);
        pendingToolUses = content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
        break;
      }
      case 'tool_results': {
        // Only results that answer a call of the preceding assistant turn are valid.
        const pending = new Set(pendingToolUses);
        push('user', record.results.filter((r) => pending.has(r.tool_use_id)));
        const answered = new Set(record.results.map((r) => r.tool_use_id));
        pendingToolUses = pendingToolUses.filter((id) => !answered.has(id));
        closePending();
        break;
      }
      case 'run_end':
        closePending();
        break;
    }
  }
  closePending();
  return messages;
}

/** A copy of the conversation with a prompt-cache breakpoint on its last block. */
export function withConversationBreakpoint(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (!last || typeof last.content === 'string' || last.content.length === 0) return messages;
  const content = [...last.content];
  const block = content[content.length - 1]!;
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return messages;
  content[content.length - 1] = { ...block, cache_control: { type: 'ephemeral' } } as ContentBlockParam;
  return [...messages.slice(0, -1), { ...last, content } as MessageParam];
}
