import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV, send, startHarness, type Harness } from './support/harness';
import { chatStream, chatUntil, type ReceivedEvent } from './support/sse';

/**
 * With no budget configured anywhere (no deployment limit, no session or daily limit on a counter), a
 * run's steps write no spend counter: the session's gains the run's first call at once (the runs list's
 * cost), then at most once a second (here: once a minute), and what is left as the run ends; the usage
 * cell gets the run's spend once, as it ends, and keeps it as uncounted in the user's and deployment's
 * days, which are not written (a limit set later takes it in). Requests are seen where they leave the
 * runtime's DynamoDB client.
 */
describe('budgets off', () => {
  let h: Harness;
  const updates: string[] = [];
  const spendReads: string[] = [];
  beforeAll(async () => {
    h = await startHarness({ budgets: { sessionSpendEveryMs: 60_000 } });
    h.server.runtime.sessions.db.middlewareStack.add(
      (next, context) => async (args) => {
        const key = JSON.stringify((args.input as { Key?: unknown }).Key ?? {});
        if (/^Update(Item)?Command$/.test(context.commandName ?? '')) updates.push(/"sk":"(SPEND|C#)/.exec(key)?.[1] ?? 'other');
        if (/^Get(Item)?Command$/.test(context.commandName ?? '') && /"sk":"SPEND/.test(key)) spendReads.push(key);
        return next(args);
      },
      { step: 'initialize', name: 'countCounterWritesForTheTest' },
    );
  });
  afterAll(() => h.close());

  it("a four-step run writes the session's counter at its first call and as it ends, its usage cell once as it ends and the days never, reads each once, and every step is counted", async () => {
    const usage = { input_tokens: 1000, output_tokens: 200 };
    const step = (i: number) => ({ toolCalls: [{ name: 'echo', input: { text: `round ${i}` } }], usage });
    h.fake.script(step(1), step(2), step(3), { text: 'Done.', usage });
    const run = await chatStream(h.url, { agent_id: 'tester', message: 'four steps' });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 4 });
    const sessionId = (run.events.find((e) => e.type === 'start') as Extract<ReceivedEvent, { type: 'start' }>).session_id;

    // The session's counter gains the first call (the runs list shows what a run has cost so far) and the other three
    // as the run ends; the user's day and the deployment's day none; the usage cell one.
    expect(updates.filter((u) => u === 'SPEND')).toHaveLength(2);
    expect(updates.filter((u) => u === 'C#')).toHaveLength(1);
    // The user's and the deployment's day as the message is admitted (the run takes them from there), the session's as the run starts.
    expect(spendReads).toHaveLength(3);
    expect(new Set(spendReads).size).toBe(3);
    // Read the moment the chat ends: all four steps are there.
    const detail = await send(h, 'GET', `/sessions/${sessionId}`, DEV);
    expect(detail.json.spend).toMatchObject({ cost_usd: 0.024, input_tokens: 4000, output_tokens: 800, max_cost_usd: null });
    const report = await send(h, 'GET', '/usage?group_by=session', DEV);
    expect(report.json.groups).toMatchObject([{ key: sessionId, cost_usd: 0.024, runs: 1, tool_calls: { echo: 3 } }]);
    // The days show it all the same, from the usage cells.
    expect((await send(h, 'GET', '/admin/budgets/users/dev', DEV)).json).toMatchObject({ spent_usd: 0.024, limit_usd: null });
  });

  it("a day with no limit shows what was spent in it; a limit set later counts it, and nothing is counted twice as the limit comes and goes", async () => {
    const yan = await h.userHeaders('yan');
    const usage = { input_tokens: 1000, output_tokens: 200 };
    const chat = async () => expect((await chatStream(h.url, { agent_id: 'tester', message: 'a step' }, yan)).events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const day = async () => (await send(h, 'GET', '/admin/budgets/users/yan', DEV)).json;
    const deploymentBefore = (await send(h, 'GET', '/admin/budgets/deployment', DEV)).json.spent_usd;
    h.fake.script({ text: 'One.', usage });
    await chat();
    expect(await day()).toMatchObject({ spent_usd: 0.006, limit_usd: null });
    expect((await send(h, 'GET', '/admin/budgets/deployment', DEV)).json.spent_usd).toBeCloseTo(deploymentBefore + 0.006, 9);

    // The limit takes in what the day spent without one; its runs then add to the day's counter.
    expect((await send(h, 'PUT', '/admin/budgets/users/yan', DEV, { daily_usd: 0.02 })).json).toMatchObject({ spent_usd: 0.006, limit_usd: 0.02 });
    h.fake.script({ text: 'Two.', usage });
    await chat();
    expect(await day()).toMatchObject({ spent_usd: 0.012, limit_usd: 0.02 });

    // Without a limit again, then with one: only what was spent in between is taken in.
    expect((await send(h, 'PUT', '/admin/budgets/users/yan', DEV, { daily_usd: null })).json).toMatchObject({ spent_usd: 0.012, limit_usd: null });
    h.fake.script({ text: 'Three.', usage });
    await chat();
    expect(await day()).toMatchObject({ spent_usd: 0.018, limit_usd: null });
    expect((await send(h, 'PUT', '/admin/budgets/users/yan', DEV, { daily_usd: 0.018 })).json).toMatchObject({ spent_usd: 0.018, limit_usd: 0.018 });
    // Spent: the next message is refused, on the figure that counts every run.
    const refused = await send(h, 'POST', '/chat', yan, { agent_id: 'tester', message: 'four' });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({ code: 'budget_reached', budget: 'user', spent_usd: 0.018 });
    const own = await send(h, 'GET', '/usage?group_by=user', yan);
    expect(own.json.groups).toMatchObject([{ key: 'yan', cost_usd: 0.018, runs: 3 }]);
  });

  it("a user's day read with no limit is not read again by their next message on this instance, until an administrator sets a limit there", async () => {
    const zed = await h.userHeaders('zed');
    const zedsDay = (keys: string[]) => keys.filter((key) => key.includes('"pk":"USER#zed"'));
    spendReads.length = 0;
    h.fake.script({ text: 'One.' }, { text: 'Two.' });
    // The second message follows the first's start: well within the 2 s the read stands for.
    const first = await chatUntil(h.url, { agent_id: 'tester', message: 'one' }, (e) => e.type === 'start', zed);
    const second = await chatStream(h.url, { agent_id: 'tester', message: 'two' }, zed);
    expect(second.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect((await first.rest()).at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(zedsDay(spendReads)).toHaveLength(1);

    // A limit set here applies to the very next message here.
    expect((await send(h, 'PUT', '/admin/budgets/users/zed', DEV, { daily_usd: 0.000001 })).status).toBe(200);
    const refused = await send(h, 'POST', '/chat', zed, { agent_id: 'tester', message: 'three' });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({ code: 'budget_reached', budget: 'user' });
  });
});

describe('budgets off, a run waiting on a long tool call', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ budgets: { sessionSpendEveryMs: 300 } });
  });
  afterAll(() => h.close());

  it("the session's counter gains the calls before the wait within the interval, not only as the run ends", async () => {
    const usage = { input_tokens: 1000, output_tokens: 200 };
    h.fake.script(
      { toolCalls: [{ name: 'echo', input: { text: 'one' } }], usage },
      // The second call's spend comes under the interval after the first's: it is held back, then the tool waits 6 s.
      { toolCalls: [{ name: 'slow', input: { ms: 6_000 } }], usage },
      { text: 'Done.', usage },
    );
    const run = await chatUntil(h.url, { agent_id: 'tester', message: 'wait a while' }, (e) => e.type === 'tool_call' && e.name === 'slow');
    // Both calls (0.006 USD each) show while the slow call still runs, well before the run's end adds the rest.
    await expect.poll(async () => (await send(h, 'GET', `/sessions/${run.sessionId}`, DEV)).json.spend.cost_usd, { timeout: 4_000, interval: 100 }).toBe(0.012);
    expect((await run.rest()).at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 3 });
    expect((await send(h, 'GET', `/sessions/${run.sessionId}`, DEV)).json.spend.cost_usd).toBe(0.018);
  });

  it("a daily limit set while such a run goes on counts what the run spent, once it ends", async () => {
    const uma = await h.userHeaders('uma');
    const usage = { input_tokens: 1000, output_tokens: 200 };
    h.fake.script({ toolCalls: [{ name: 'slow', input: { ms: 2_500 } }], usage }, { text: 'Done.', usage });
    const run = await chatUntil(h.url, { agent_id: 'tester', message: 'take your time' }, (e) => e.type === 'tool_call' && e.name === 'slow', uma);
    // Set while the run waits on its tool: nothing of the day is counted yet, so 0.01 is not spent.
    expect((await send(h, 'PUT', '/admin/budgets/users/uma', DEV, { daily_usd: 0.01 })).json).toMatchObject({ spent_usd: 0, limit_usd: 0.01 });
    expect((await run.rest()).at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    // The run's 0.012 counts against the limit: the next message is refused.
    const refused = await send(h, 'POST', '/chat', uma, { agent_id: 'tester', message: 'more' });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({ code: 'budget_reached', budget: 'user', spent_usd: 0.012 });
  });
});
