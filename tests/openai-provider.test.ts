import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncAgents } from '../local/stack';
import { DEV, getJson, startHarness, type Harness } from './support/harness';
import { chatStream, readSse, type ReceivedEvent } from './support/sse';

const KEY = 'sk-fakeai-secret-0123456789';

async function syncAgentFiles(h: Harness, agents: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'zero-openai-'));
  for (const [id, front] of Object.entries(agents)) {
    writeFileSync(join(dir, `${id}.md`), `---\nname: ${id}\ndescription: ${id} of the provider tests.\n${front}\n---\n\n## Role\n\nYou are ${id}.\n`);
  }
  await syncAgents(h.stack.store, dir);
}

describe('an agent on an OpenAI-compatible endpoint', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ openai: { key: KEY, noTools: ['tiny'], prices: { 'priced-model': { input: 2, output: 8 } }, contextWindows: { 'small-window': 1_500 } } });
    await syncAgentFiles(h, {
      'oa-priced': 'model: fakeai:priced-model\ntools: echo',
      'oa-free': 'model: fakeai:free-model\ntools: echo',
      'oa-tiny-tools': 'model: fakeai:tiny\ntools: echo',
      'oa-tiny-chat': 'model: fakeai:tiny\ntools: []',
      'oa-nowhere': 'model: nowhere:some-model',
      'oa-bad-fallback': 'model: fakeai:priced-model\ntools: echo\nfallback: elsewhere:model',
      'oa-small': 'model: fakeai:small-window\ntools: []',
    });
  });
  afterAll(() => h.close());
  afterEach(() => h.openai!.reset());

  it('sends the conversation as Chat Completions: system message, functions, the call and its result, the key', async () => {
    h.openai!.script({ toolCalls: [{ id: 'call_1', name: 'echo', input: { text: 'hi' } }] }, { text: 'done' });
    await chatStream(h.url, { agent_id: 'oa-priced', message: 'say hi' });

    const [first, second] = h.openai!.requests;
    expect(first!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first!.body).toMatchObject({ model: 'priced-model', stream: true, stream_options: { include_usage: true } });
    expect(first!.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You are oa-priced') });
    expect(first!.body.messages.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('say hi') });
    expect(first!.body.tools).toEqual([{ type: 'function', function: { name: 'echo', description: expect.any(String), parameters: expect.objectContaining({ type: 'object' }) } }]);
    // Nothing of Anthropic's own request shape (cache breakpoints, content blocks) reaches the endpoint.
    expect(JSON.stringify(first!.body)).not.toContain('cache_control');
    expect(second!.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'echo: hi' },
    ]);
  });

  it("takes the model's context window from its endpoint's configuration, not Claude's 200k", async () => {
    h.openai!.script({ text: 'never asked' });
    // About 2,500 tokens in a first message: nothing older to fold, over the 1,500 the endpoint says the model takes.
    const { events } = await chatStream(h.url, { agent_id: 'oa-small', message: 'word '.repeat(2_000) });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'context_exhausted', message: expect.stringContaining("of the model's 1500") });
    expect(h.openai!.requests).toHaveLength(0);
  });

  it('prices a model on the endpoint’s table', async () => {
    h.openai!.script({ text: 'priced', usage: { input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 200 } });
    const { events } = await chatStream(h.url, { agent_id: 'oa-priced', message: 'hello' });
    const done = events.at(-1) as { usage: Record<string, unknown> };
    // 1000 × $2 + 200 cached × $2 + 500 × $8, per million tokens.
    expect(done.usage).toEqual({ input_tokens: 1000, cache_read_input_tokens: 200, cache_creation_input_tokens: 0, output_tokens: 500, cost_usd: 0.0064 });
  });

  it('states the cost of a model the table does not price as unknown, not as free', async () => {
    h.openai!.script({ text: 'unpriced', usage: { input_tokens: 1000, output_tokens: 500 } });
    const { events } = await chatStream(h.url, { agent_id: 'oa-free', message: 'hello' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', usage: { input_tokens: 1000, output_tokens: 500, cost_usd: 0, cost_known: false } });
    const { history } = (await getJson(`${h.url}/api/v2/sessions/${(events[0] as { session_id: string }).session_id}`)).json;
    expect(history.find((r: { kind: string }) => r.kind === 'assistant').usage).toMatchObject({ cost_usd: 0, cost_known: false });
  });

  it('refuses at load an agent naming an unconfigured provider (one with tools on a model without tool calling loads: see text-tool-calls.test.ts)', async () => {
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const ids = json.agents.map((a: { id: string }) => a.id);
    expect(ids).toContain('oa-tiny-chat');
    expect(ids).toContain('oa-tiny-tools');
    expect(json.errors).toEqual(
      expect.arrayContaining([
        { file: 'agents/oa-nowhere.md', field: 'model', message: expect.stringContaining('provider "nowhere", which is not configured (set ZERO_PROVIDER_NOWHERE_URL)') },
        { file: 'agents/oa-bad-fallback.md', field: 'fallback', message: expect.stringContaining('provider "elsewhere"') },
      ]),
    );
    // Nothing was asked of the model meanwhile.
    expect(h.openai!.requests).toHaveLength(0);
  });

  it('ends the run with a model error naming the endpoint when it keeps failing, without its key', async () => {
    h.openai!.script({ status: 500, retryAfterSeconds: 0 }, { status: 500, retryAfterSeconds: 0 }, { status: 500, retryAfterSeconds: 0 });
    const { events } = await chatStream(h.url, { agent_id: 'oa-priced', message: 'down?' });
    expect(h.openai!.requests).toHaveLength(3);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'model_error', message: expect.stringContaining('fakeai answered 500') });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    expect(JSON.stringify(events)).not.toContain(KEY);
  });
});

describe('a fallback chain', () => {
  let h: Harness;
  beforeAll(async () => {
    // The deployment's chain: Anthropic, then the endpoint. One agent sets its own: the endpoint, then Anthropic.
    h = await startHarness({ openai: {}, providers: { fallback: ['fakeai:backup-model'] } });
    await syncAgentFiles(h, {
      'fb-claude': 'model: claude-test-model\ntools: echo',
      'fb-free-first': 'model: fakeai:free-model\ntools: echo\nfallback: anthropic:claude-test-model',
    });
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.fake.reset();
    h.openai!.reset();
  });

  it('redoes the step on the next provider when Anthropic is overloaded past its retries, with one retry event naming it', async () => {
    h.fake.script({ status: 529, retryAfterSeconds: 0 }, { status: 529, retryAfterSeconds: 0 }, { status: 529, retryAfterSeconds: 0 });
    h.openai!.script({ text: 'answered by the backup' });
    const { events } = await chatStream(h.url, { agent_id: 'fb-claude', message: 'anyone there?' });

    expect(h.fake.requests).toHaveLength(3);
    expect(h.openai!.requests.map((r) => r.body.model)).toEqual(['backup-model']);
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      expect.objectContaining({ step: 1, provider: 'fakeai:backup-model', reason: expect.stringContaining('anthropic:claude-test-model is unavailable') }),
    ]);
    // The step is priced on the table of the provider that answered: the backup's, which has no price for it.
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', usage: { cost_usd: 0, cost_known: false } });
    const sessionId = (events[0] as { session_id: string }).session_id;
    // The session log says which model answered the step.
    const { history } = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json;
    expect(history.filter((r: { kind: string }) => r.kind === 'assistant').map((r: { model?: string }) => r.model)).toEqual(['fakeai:backup-model']);
    // The session's event log keeps the retry, as every reader of the session sees it.
    const replayed: ReceivedEvent[] = [];
    for await (const event of readSse(await fetch(`${h.url}/api/v2/sessions/${sessionId}/events`, { headers: DEV }))) {
      replayed.push(event);
      if (event.type === 'done') break;
    }
    expect(replayed.filter((e) => e.type === 'retry')).toEqual([expect.objectContaining({ provider: 'fakeai:backup-model' })]);
  });

  it('follows the agent’s own chain, which replaces the deployment’s: a free model first, then Claude', async () => {
    h.openai!.script({ status: 503, retryAfterSeconds: 0 }, { status: 503, retryAfterSeconds: 0 }, { status: 503, retryAfterSeconds: 0 });
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'Claude finished it.' });
    h.openai!.respondWith(() => ({ status: 503, retryAfterSeconds: 0 }));
    const { events } = await chatStream(h.url, { agent_id: 'fb-free-first', message: 'go' });

    // Each step starts on the agent's model again, and falls back once.
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { step: number; provider?: string }).provider)).toEqual(['anthropic:claude-test-model', 'anthropic:claude-test-model']);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    expect(h.fake.requests).toHaveLength(2);
  });

  it('does not fall back on a request the provider refuses (a 400 is not unavailability)', async () => {
    h.fake.script({ status: 400 });
    const { events } = await chatStream(h.url, { agent_id: 'fb-claude', message: 'bad' });
    expect(h.openai!.requests).toHaveLength(0);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});
