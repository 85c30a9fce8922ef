import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../store/records';
import { missingEvents } from './missing-events';
import type { StreamEvent } from '@zero/agent/wire';

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };
const at = '2026-01-01T00:00:00.000Z';
const records: LogRecord[] = [
  { v: 1, seq: 1, at, run_id: 'r', kind: 'user_message', message_id: 1, text: 'hi', agent_id: 'a', model: 'm', voice_mode: 'full' },
  {
    v: 1,
    seq: 2,
    at,
    run_id: 'r',
    kind: 'assistant',
    step: 1,
    agent_id: 'a',
    content: [
      { type: 'text', text: 'Looking. ' },
      { type: 'tool_use', id: 't1', name: 'echo', input: { text: 'x' } },
      { type: 'tool_use', id: 't2', name: 'echo', input: { text: 'y' } },
    ],
    usage,
  },
  { v: 1, seq: 3, at, run_id: 'r', kind: 'tool_result', step: 1, tool_use_id: 't2', name: 'echo', content: 'echo: y' },
  { v: 1, seq: 4, at, run_id: 'r', kind: 'tool_result', step: 1, tool_use_id: 't1', name: 'echo', content: 'echo: x' },
  { v: 1, seq: 5, at, run_id: 'r', kind: 'assistant', step: 2, agent_id: 'a', content: [{ type: 'text', text: 'Both echoed.' }], usage },
  { v: 1, seq: 6, at, run_id: 'r', kind: 'run_end', status: 'completed', steps: 2, usage },
];
const logged = (...events: StreamEvent[]) => events;

describe('events derived from stored records whose events never reached the event log', () => {
  it('derives nothing when every record has its event', () => {
    const events = logged(
      { type: 'message', message_id: 1, text: 'hi', run_id: 'r' },
      { type: 'text', delta: 'Looking. ', run_id: 'r' },
      { type: 'tool_call', id: 't1', name: 'echo', input: {}, run_id: 'r' },
      { type: 'tool_call', id: 't2', name: 'echo', input: {}, run_id: 'r' },
      { type: 'tool_result', id: 't1', name: 'echo', content: 'echo: x', is_error: false, run_id: 'r' },
      { type: 'tool_result', id: 't2', name: 'echo', content: 'echo: y', is_error: false, run_id: 'r' },
      { type: 'text', delta: 'Both echoed.', run_id: 'r' },
      { type: 'done', run_id: 'r', status: 'completed', steps: 2, usage },
    );
    expect(missingEvents('s', records, events)).toEqual([]);
  });

  it('derives the tail the log lacks, including a result logged out of record order and the rest of a half-streamed text', () => {
    const events = logged(
      { type: 'message', message_id: 1, text: 'hi', run_id: 'r' },
      { type: 'text', delta: 'Looking. ', run_id: 'r' },
      { type: 'tool_call', id: 't1', name: 'echo', input: {}, run_id: 'r' },
      { type: 'tool_call', id: 't2', name: 'echo', input: {}, run_id: 'r' },
      // t1's result (stored second) reached the log; t2's (stored first) did not.
      { type: 'tool_result', id: 't1', name: 'echo', content: 'echo: x', is_error: false, run_id: 'r' },
      { type: 'text', delta: 'Both ', run_id: 'r' },
    );
    expect(missingEvents('s', records, events)).toEqual([
      { type: 'tool_result', id: 't2', name: 'echo', content: 'echo: y', is_error: false, agent_id: 'a', run_id: 'r' },
      { type: 'text', delta: 'echoed.', agent_id: 'a', run_id: 'r' },
      { type: 'done', run_id: 'r', status: 'completed', steps: 2, usage },
    ]);
  });

  it('derives every event when the log has none of the run', () => {
    const derived = missingEvents('s', records, []);
    expect(derived.map((e) => e.type)).toEqual(['message', 'text', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'text', 'done']);
  });

  it("derives a run's done as the live stream sent it: a budget_reached end says which budget is spent", () => {
    const ended: LogRecord[] = [
      records[0]!,
      { v: 1, seq: 2, at, run_id: 'r', kind: 'run_end', status: 'budget_reached', steps: 0, usage, reason: 'the budget is spent', budget: 'user' },
    ];
    expect(missingEvents('s', ended, logged({ type: 'message', message_id: 1, text: 'hi', run_id: 'r' }))).toEqual([
      { type: 'done', run_id: 'r', status: 'budget_reached', steps: 0, usage, reason: 'the budget is spent', budget: 'user' },
    ]);
  });
});
