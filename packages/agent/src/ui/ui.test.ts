import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../wire';
import { historyToUIMessages, userMessageId } from './history-to-ui-messages';
import { planReportOf, withPlanReport } from './plan-progress';

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0.01 };
const at = (seq: number, run = 'run_1') => ({ v: 1 as const, seq, at: '2026-01-01T00:00:00Z', run_id: run });

function oneToolRun(toolResult: Partial<HistoryRecord> = {}): HistoryRecord[] {
  return [
    { ...at(1), kind: 'user_message', text: 'Read a.txt', agent_id: 'zero', model: 'm', voice_mode: 'full' },
    { ...at(2), kind: 'assistant', step: 1, agent_id: 'zero', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.txt' } }], usage },
    { ...at(3), kind: 'tool_result', step: 1, tool_use_id: 't1', name: 'read_file', content: 'hello', ...toolResult },
    { ...at(4), kind: 'assistant', step: 2, agent_id: 'zero', content: [{ type: 'text', text: 'It says hello.' }], usage },
    { ...at(5), kind: 'run_end', status: 'completed', steps: 2, usage },
  ] as HistoryRecord[];
}

describe('history → useChat messages', () => {
  it('rebuilds a run as the stream sent it: the question, then steps, the call with its output, the answer and its usage', () => {
    const [question, answer] = historyToUIMessages(oneToolRun());
    expect(question).toMatchObject({ id: userMessageId('run_1'), role: 'user', parts: [{ type: 'text', text: 'Read a.txt' }] });
    expect(answer!.id).toBe('run_1');
    expect(answer!.parts.map((p) => p.type)).toEqual(['step-start', 'text', 'tool-read_file', 'step-start', 'text', 'data-usage']);
    expect(answer!.parts[2]).toMatchObject({ toolCallId: 't1', state: 'output-available', input: { path: 'a.txt' }, output: 'hello' });
    expect(answer!.metadata).toMatchObject({ run_id: 'run_1', agent_id: 'zero', status: 'completed' });
  });

  it('shows a failed call as an error part, and a run still going without its usage', () => {
    const history = oneToolRun({ is_error: true, content: 'no such file' }).slice(0, 3);
    const [, answer] = historyToUIMessages(history);
    expect(answer!.parts.at(-1)).toMatchObject({ type: 'tool-read_file', state: 'output-error', errorText: 'no such file' });
    expect(answer!.parts.some((p) => p.type === 'data-usage')).toBe(false);
  });

  it('adds messages still queued behind the run, marked as queued', () => {
    const messages = historyToUIMessages(oneToolRun(), [{ run_id: 'run_2', text: 'next?' }]);
    expect(messages.at(-1)).toMatchObject({ id: 'run_2:user', role: 'user', parts: [{ type: 'text', text: 'next?' }], metadata: { queued: true } });
  });
});

describe('plan progress', () => {
  const steps = ['Read the code', 'Write the report'];

  it('reads a report only for a step of the plan with a known status', () => {
    expect(planReportOf({ step: 2, status: 'done', note: 'ok' }, steps)).toEqual({ step: 2, steps: 2, title: 'Write the report', status: 'done', note: 'ok' });
    for (const input of [{ step: 3, status: 'done' }, { step: 0, status: 'done' }, { step: 1.5, status: 'done' }, { step: 1, status: 'finished' }, null, 'step 1'])
      expect(planReportOf(input, steps)).toBeUndefined();
  });

  it('keeps one entry per step, in step order, the latest report winning', () => {
    let part = withPlanReport(undefined, { step: 2, steps: 2, title: 'Write the report', status: 'started' });
    part = withPlanReport(part, { step: 1, steps: 2, title: 'Read the code', status: 'done', note: 'read 3 files' });
    part = withPlanReport(part, { step: 2, steps: 2, title: 'Write the report', status: 'failed' });
    expect(part).toEqual({
      steps: 2,
      reported: [
        { step: 1, title: 'Read the code', status: 'done', note: 'read 3 files' },
        { step: 2, title: 'Write the report', status: 'failed' },
      ],
    });
  });
});
