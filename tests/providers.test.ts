import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncAgents } from '../local/stack';
import type { FakeTurn } from './support/fake-anthropic';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

/** Agent files for one scenario run, with their model filled in, synced into the harness's bucket. */
async function syncScenarioAgents(h: Harness, agents: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'zero-providers-'));
  for (const [id, text] of Object.entries(agents)) writeFileSync(join(dir, `${id}.md`), text);
  await syncAgents(h.stack.store, dir);
}

const agentFile = (name: string, front: string) => `---\nname: ${name}\ndescription: ${name}, an agent of the provider scenarios.\n${front}\n---\n\n## Role\n\nYou are ${name}.\n`;

/** Each provider as the suite drives it: the fake behind it, and what its requests say, in its own wire format. */
interface ProviderUnderTest {
  name: string;
  /** The model the scenario agents name. */
  model: string;
  fake(h: Harness): { script(...turns: FakeTurn[]): unknown; reset(): void; requests: { body: unknown }[] };
  /** The tool results a request sends back, in order. */
  toolResults(body: any): { id: string; content: string }[];
  /** The tools a request offers. */
  toolNames(body: any): string[];
}

const PROVIDERS: ProviderUnderTest[] = [
  {
    name: 'Anthropic',
    model: 'claude-test-model',
    fake: (h) => h.fake,
    toolResults: (body) =>
      (body.messages.at(-1).content as any[]).filter((b) => b.type === 'tool_result').map((b) => ({ id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : b.content.map((p: any) => p.text).join('') })),
    toolNames: (body) => (body.tools ?? []).map((t: any) => t.name),
  },
  {
    name: 'Bedrock',
    model: 'bedrock:claude-test-model',
    // The fake Bedrock runtime answers with the fake Anthropic server's script, re-framed as AWS event streams.
    fake: (h) => h.fake,
    toolResults: (body) => PROVIDERS[0]!.toolResults(body),
    toolNames: (body) => PROVIDERS[0]!.toolNames(body),
  },
  {
    name: 'an OpenAI-compatible endpoint',
    model: 'fakeai:test-model',
    fake: (h) => h.openai!,
    toolResults: (body) => {
      const messages = body.messages as any[];
      const after = messages.findLastIndex((m) => m.role === 'assistant');
      return messages.slice(after + 1).filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, content: m.content }));
    },
    toolNames: (body) => (body.tools ?? []).map((t: any) => t.function.name),
  },
];

const texts = (events: ReceivedEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
const sessionOf = (events: ReceivedEvent[]) => (events[0] as { session_id: string }).session_id;

describe.each(PROVIDERS)('the shared scenarios on $name', (provider) => {
  let h: Harness;
  const fake = () => provider.fake(h);

  beforeAll(async () => {
    h = await startHarness({ openai: { key: 'sk-fakeai-secret-0123456789' }, bedrock: true });
    await syncScenarioAgents(h, {
      'prov-lead': agentFile('Lead', `model: ${provider.model}\ntools: echo, delegate_agent\ndelegates_to: prov-helper`),
      'prov-helper': agentFile('Helper', `model: ${provider.model}\ntools: echo`),
    });
  });
  afterAll(() => h.close());
  afterEach(() => {
    // Every call went through this provider's own wire protocol, and only there.
    const viaBedrock = h.fake.requests.filter((r) => r.headers['x-fake-bedrock-model']).length;
    const counts = { anthropic: h.fake.requests.length - viaBedrock, bedrock: h.bedrock!.requests.length, openai: h.openai!.requests.length };
    expect(viaBedrock).toBe(counts.bedrock);
    const used = Object.entries(counts).filter(([, n]) => n > 0).map(([name]) => name);
    expect(used).toEqual([{ Anthropic: 'anthropic', Bedrock: 'bedrock', 'an OpenAI-compatible endpoint': 'openai' }[provider.name]]);
    h.fake.reset();
    h.openai!.reset();
    h.bedrock!.reset();
  });

  it('runs a two-step tool run: the call, its result sent back, the answer', async () => {
    fake().script({ text: 'Let me echo.', toolCalls: [{ name: 'echo', input: { text: 'ping' } }] }, { text: 'It said ping.' });
    const { events } = await chatStream(h.url, { agent_id: 'prov-lead', message: 'echo ping' });

    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ name: 'echo', input: { text: 'ping' } });
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ name: 'echo', content: 'echo: ping', is_error: false });
    expect(texts(events)).toBe('Let me echo.It said ping.');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    const [first, second] = fake().requests;
    expect(provider.toolNames(first!.body)).toEqual(expect.arrayContaining(['echo', 'delegate_agent']));
    const call = events.find((e) => e.type === 'tool_call') as { id: string };
    expect(provider.toolResults(second!.body)).toEqual([{ id: call.id, content: 'echo: ping' }]);
  });

  it('runs parallel tool calls of one step and answers them in the order the model made them', async () => {
    fake().script(
      { toolCalls: [{ id: 'call_a', name: 'echo', input: { text: 'first' } }, { id: 'call_b', name: 'echo', input: { text: 'second' } }], inputChunks: 3, inputDelayMs: 60 },
      { text: 'Both echoed.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'prov-lead', message: 'echo twice' });

    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e as { input: unknown }).input)).toEqual([{ text: 'first' }, { text: 'second' }]);
    // The input JSON streamed in pieces is relayed per call, and adds up to each call's input.
    const deltas = events.filter((e) => e.type === 'tool_call_delta') as { id: string; delta: string }[];
    expect(JSON.parse(deltas.filter((d) => d.id === 'call_a').map((d) => d.delta).join(''))).toEqual({ text: 'first' });
    expect(JSON.parse(deltas.filter((d) => d.id === 'call_b').map((d) => d.delta).join(''))).toEqual({ text: 'second' });
    expect(provider.toolResults(fake().requests[1]!.body)).toEqual([
      { id: 'call_a', content: 'echo: first' },
      { id: 'call_b', content: 'echo: second' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('retries a step whose stream fails mid-way, keeping nothing of the failed attempt', async () => {
    fake().script({ text: 'half of a broken answer', failAfterChunks: 2 }, { text: 'the clean answer' });
    const { events } = await chatStream(h.url, { agent_id: 'prov-lead', message: 'flaky' });

    const retries = events.filter((e) => e.type === 'retry');
    expect(retries).toEqual([expect.objectContaining({ step: 1, attempt: 1 })]);
    const afterRetry = events.slice(events.indexOf(retries[0]!) + 1);
    expect(texts(afterRetry)).toBe('the clean answer');
    const { history } = (await getJson(`${h.url}/api/v2/sessions/${sessionOf(events)}`)).json;
    const assistants = history.filter((r: { kind: string }) => r.kind === 'assistant');
    expect(assistants.map((r: { content: unknown }) => r.content)).toEqual([[{ type: 'text', text: 'the clean answer' }]]);
  });

  it('waits out a 429 (retry-after) and completes the run', async () => {
    fake().script({ status: 429, retryAfterSeconds: 0 }, { text: 'after the wait' });
    const { events } = await chatStream(h.url, { agent_id: 'prov-lead', message: 'busy?' });
    expect(fake().requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('delegates a task to another agent on the same provider and answers with its findings', async () => {
    fake().script(
      { toolCalls: [{ id: 'call_deleg', name: 'delegate_agent', input: { agent_id: 'prov-helper', task: 'Echo "deep".' } }] },
      { toolCalls: [{ name: 'echo', input: { text: 'deep' } }] },
      { text: 'The echo said deep.' },
      { text: 'Helper reports: deep.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'prov-lead', message: 'ask the helper' });

    expect(events.filter((e) => e.type === 'agent_switch').map((e) => [(e as { from: string }).from, (e as { to: string }).to])).toEqual([
      ['prov-lead', 'prov-helper'],
      ['prov-helper', 'prov-lead'],
    ]);
    expect(events.find((e) => e.type === 'tool_result' && e.name === 'echo')).toMatchObject({ agent_id: 'prov-helper', content: 'echo: deep' });
    const [delegation] = provider.toolResults(fake().requests[3]!.body);
    expect(delegation).toMatchObject({ id: 'call_deleg', content: expect.stringContaining('The echo said deep.') });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });
});
