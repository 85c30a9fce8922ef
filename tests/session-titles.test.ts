import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './support/cli';
import { DEV, DEV_KEY, send, startHarness, type Harness } from './support/harness';
import type { FakeRequest } from './support/fake-anthropic';

/** The title call: Zero's own instructions, sent to the light tier's model. */
const isTitleCall = (request: FakeRequest) => JSON.stringify(request.body.system ?? '').includes('You name conversations');

describe("a new session's short title, from the light tier after the first exchange", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sessionTitles: true, tiers: { light: 'claude-haiku-4-5' }, budgets: { sessionMaxMicros: 1_000_000 } });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('titles the session in the sessions list and the CLI, and counts the title call in the run, the session spend and GET /usage', async () => {
    const message = 'What is the capital of France? I am planning a trip next spring and need to know where to fly.';
    h.fake.script(
      { text: 'The capital of France is Paris.', usage: { input_tokens: 1000, output_tokens: 20 } },
      { text: '"Capital of France"\nTrip planning', usage: { input_tokens: 300, output_tokens: 6 } },
    );
    const chat = await send(h, 'POST', '/chat', DEV, { message });
    expect(chat.json).toMatchObject({ status: 'completed', text: 'The capital of France is Paris.' });
    const sessionId = chat.json.session_id;

    // One call to the light tier's model, after the answer, reading the first message and the answer as data.
    expect(h.fake.requests.map((r) => r.body.model)).toEqual(['claude-sonnet-4-6', 'claude-haiku-4-5']);
    const titleCall = h.fake.requests[1]!;
    expect(isTitleCall(titleCall)).toBe(true);
    expect(titleCall.body.tools ?? []).toEqual([]);
    expect(JSON.stringify(titleCall.body.messages)).toContain('capital of France');
    expect(JSON.stringify(titleCall.body.messages)).toContain('Paris');

    // The list (and the session) show the short title: one line, without the quotes the model put around it.
    const list = await send(h, 'GET', '/sessions', DEV);
    expect(list.json.sessions.find((s: { session_id: string }) => s.session_id === sessionId)).toMatchObject({ title: 'Capital of France' });
    const cli = await runCli(['sessions'], { env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }) });
    expect(cli.code).toBe(0);
    expect(cli.stdout.split('\n').find((line) => line.includes(sessionId))).toContain('Capital of France');

    // Its tokens and cost count in the run's usage, the session's spend (its budget) and the usage counters.
    expect(chat.json.usage).toMatchObject({ input_tokens: 1300, output_tokens: 26 });
    const detail = await send(h, 'GET', `/sessions/${sessionId}`, DEV);
    expect(detail.json.spend).toMatchObject({ input_tokens: 1300, output_tokens: 26, cost_usd: chat.json.usage.cost_usd });
    expect(detail.json.history.findLast((r: { kind: string }) => r.kind === 'run_end')).toMatchObject({ status: 'completed', usage: { input_tokens: 1300, output_tokens: 26 } });
    const usage = await send(h, 'GET', '/usage?group_by=session', DEV);
    expect(usage.json.groups.find((g: { key: string }) => g.key === sessionId)).toMatchObject({ input_tokens: 1300, output_tokens: 26, cost_usd: chat.json.usage.cost_usd });
    // Priced as the light tier's model: more than the answer alone cost.
    const answerOnly = (1000 * 3 + 20 * 15) / 1e6;
    expect(chat.json.usage.cost_usd).toBeGreaterThan(answerOnly);

    // Later exchanges make no title call.
    h.fake.reset();
    h.fake.script({ text: 'Spring is lovely there.' });
    const second = await send(h, 'POST', '/chat', DEV, { session_id: sessionId, message: 'And the weather?' });
    expect(second.json.status).toBe('completed');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('keeps the first line of the message as the title when the title call fails, and the run succeeds', async () => {
    h.fake.respondWith((request) => (isTitleCall(request) ? { status: 400 } : { text: 'Here is the plan.', usage: { input_tokens: 500, output_tokens: 10 } }));
    const chat = await send(h, 'POST', '/chat', DEV, { message: 'Plan my week\nwith three meetings' });
    expect(chat.json).toMatchObject({ status: 'completed', text: 'Here is the plan.', usage: { input_tokens: 500, output_tokens: 10 } });
    expect(h.fake.requests.filter(isTitleCall)).toHaveLength(1);
    const list = await send(h, 'GET', '/sessions', DEV);
    expect(list.json.sessions.find((s: { session_id: string }) => s.session_id === chat.json.session_id)).toMatchObject({ title: 'Plan my week' });
  });

  it('leaves a title a person set alone', async () => {
    const created = await send(h, 'POST', '/sessions', DEV, { title: 'My own title' });
    expect(created.status).toBe(201);
    h.fake.script({ text: 'Sure.' });
    const chat = await send(h, 'POST', '/chat', DEV, { session_id: created.json.session.session_id, message: 'hello there' });
    expect(chat.json.status).toBe('completed');
    expect(h.fake.requests.filter(isTitleCall)).toHaveLength(0);
    expect((await send(h, 'GET', `/sessions/${chat.json.session_id}`, DEV)).json.session).toMatchObject({ title: 'My own title' });
  });
});
