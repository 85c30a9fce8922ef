import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyToUIMessages } from '@zero/agent/ui';
import type { Delegation } from '@zero/agent/wire';
import { DEV, getJson, startHarness, type Harness } from './support/harness';
import { NodeChat, newChatId } from './support/node-chat';

const usage = { input_tokens: 100, output_tokens: 10 };

/** The hand-over script: zero delegates to cereal, which calls a tool, answers, and zero sums up. */
const delegationScript = () => [
  { text: 'Bringing in Cereal.', toolCalls: [{ id: 'toolu_deleg', name: 'delegate_agent', input: { agent_id: 'cereal', task: 'Is lodash vulnerable in acme/web?' } }], usage },
  { text: 'Checking the agent list.', toolCalls: [{ id: 'toolu_info', name: 'get_agent_info', input: { agent_id: 'phreak' } }], usage },
  { text: 'lodash 4.17.20 is **vulnerable**; upgrade to 4.17.21.', usage },
  { text: 'Cereal found one problem: lodash.', usage },
];

describe('a delegation in the UI message stream', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it("shows the delegate's words, tool calls and usage as one data-delegation part, apart from the caller's text, and the history rebuilds the same part", async () => {
    h.fake.script(...delegationScript());
    const id = newChatId();
    const live = new NodeChat(h.url, id, DEV, { agent_id: 'zero' });
    await live.sendMessage({ text: 'Is acme/web safe?' });
    const answer = live.messages.at(-1)!;

    // The caller's own words only: the delegate's do not run into them.
    const callerText = answer.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('|');
    expect(callerText).toBe('Bringing in Cereal.|Cereal found one problem: lodash.');
    const delegations = answer.parts.filter((p) => p.type === 'data-delegation') as { id: string; data: Delegation }[];
    expect(delegations).toHaveLength(1);
    const { data } = delegations[0]!;
    expect(data).toMatchObject({
      parent_run_id: answer.id,
      from: 'zero',
      to: 'cereal',
      tool_call_id: 'toolu_deleg',
      status: 'completed',
      usage: { input_tokens: 200, output_tokens: 20 },
    });
    // Its words and calls in the order it made them.
    expect(data.items).toEqual([
      { type: 'text', text: 'Checking the agent list.' },
      { type: 'tool', id: 'toolu_info', name: 'get_agent_info', input: { agent_id: 'phreak' }, state: 'done', output: expect.stringContaining('phreak') },
      { type: 'text', text: 'lodash 4.17.20 is **vulnerable**; upgrade to 4.17.21.' },
    ]);
    // The part sits right after the call that delegated.
    const callIndex = answer.parts.findIndex((p) => 'toolCallId' in p && p.toolCallId === 'toolu_deleg');
    expect(answer.parts[callIndex + 1]!.type).toBe('data-delegation');
    // No delegate's tool call shows as the caller's.
    expect(answer.parts.filter((p) => 'toolCallId' in p).map((p) => (p as { toolCallId: string }).toolCallId)).toEqual(['toolu_deleg']);

    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    const reloaded = historyToUIMessages(json.history).at(-1)!;
    expect(reloaded.parts.filter((p) => p.type === 'data-delegation')).toEqual([{ type: 'data-delegation', id: data.run_id, data: { ...data, usage: expect.objectContaining(data.usage) } }]);
    expect(reloaded.parts.map((p) => p.type)).toEqual(answer.parts.map((p) => p.type));
  });
});
