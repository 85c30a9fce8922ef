import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../records/log-record';
import { toMessages, withConversationBreakpoint } from './history';

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };
const base = { v: 1 as const, at: '2026-11-22T00:00:00.000Z', run_id: 'run_1' };

describe('toMessages', () => {
  it('answers a tool call left without a result (a run that died mid-step) with an error result', () => {
    const records: LogRecord[] = [
      { ...base, seq: 1, kind: 'user_message', text: 'hi', agent_id: 'zero', model: 'm', voice_mode: 'full', author: { id: 'u1', name: 'Alice' } },
      { ...base, seq: 2, kind: 'assistant', step: 1, agent_id: 'zero', usage, content: [{ type: 'tool_use', id: 't1', name: 'echo', input: {} }] },
      { ...base, seq: 3, kind: 'user_message', text: 'still there?', agent_id: 'zero', model: 'm', voice_mode: 'full' },
    ];
    expect(toMessages(records)).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[user:u1 "Alice"] hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'echo', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'This tool call was interrupted before it returned a result.', is_error: true },
          { type: 'text', text: 'still there?' },
        ],
      },
    ]);
  });

  it('merges consecutive user turns (a run that failed before answering)', () => {
    const records: LogRecord[] = [
      { ...base, seq: 1, kind: 'user_message', text: 'one', agent_id: 'zero', model: 'm', voice_mode: 'full' },
      { ...base, seq: 2, kind: 'run_end', status: 'error', steps: 0, usage },
      { ...base, seq: 3, kind: 'user_message', text: 'two', agent_id: 'zero', model: 'm', voice_mode: 'full' },
    ];
    const messages = toMessages(records);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toHaveLength(2);
  });

  it('marks only the last block of the last message as a cache breakpoint, without changing the input', () => {
    const messages = toMessages([{ ...base, seq: 1, kind: 'user_message', text: 'x', agent_id: 'zero', model: 'm', voice_mode: 'full' }]);
    const marked = withConversationBreakpoint(messages);
    expect((marked[0]!.content as { cache_control?: unknown }[])[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect((messages[0]!.content as { cache_control?: unknown }[])[0]!.cache_control).toBeUndefined();
  });
});
