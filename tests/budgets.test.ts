import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dayOf } from '@zero/runtime/store';
import { startChildServer } from './support/child';
import { DEV, childConfig, send, startHarness, type Harness } from './support/harness';
import { chatStream, chatUntil, readSse, type ReceivedEvent } from './support/sse';

const done = (events: ReceivedEvent[]) => events.at(-1) as Extract<ReceivedEvent, { type: 'done' }>;
/** A model that never stops calling tools: each step costs $0.006 at Sonnet's prices (1000 in, 200 out). */
/**
 * A step as dear as a call can be here (max_tokens is 1000 in this file): $0.01503 at Sonnet's prices. A
 * call's reservation is that output plus its input priced as cache writes ($3.75/M): under $0.02 for these
 * small prompts, so a budget passed "by at most one call's reservation" is passed by less than $0.02.
 */
const dear = { input_tokens: 10, output_tokens: 1000 };
const ONE_RESERVATION_USD = 0.02;
const looping = (turns: number) => Array.from({ length: turns }, (_, i) => ({ toolCalls: [{ name: 'echo', input: { text: `round ${i}` } }], usage: { input_tokens: 1000, output_tokens: 200 } }));

describe('budgets', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxSteps: 30, maxOutputTokensPerCall: 1000 }, budgets: { sessionMaxMicros: 1_000_000 } });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('stops a looping run at its session budget within one step, and carries on once the owner raises it', async () => {
    const alice = await h.userHeaders('alice');
    const created = await send(h, 'POST', '/sessions', alice, { agent_id: 'tester', max_cost_usd: 0.01 });
    expect(created.status).toBe(201);
    const sessionId = created.json.session.session_id;

    h.fake.script(...looping(20));
    const first = await chatStream(h.url, { session_id: sessionId, message: 'loop forever' }, alice);
    // $0.006 after one step, $0.012 after two: the check before the third model call stops the run.
    expect(done(first.events)).toMatchObject({ status: 'budget_reached', budget: 'session', steps: 2, reason: expect.stringContaining("session's budget is spent") });
    expect(h.fake.requests).toHaveLength(2);
    const detail = await send(h, 'GET', `/sessions/${sessionId}`, alice);
    expect(detail.json.spend).toMatchObject({ cost_usd: 0.012, input_tokens: 2000, output_tokens: 400, max_cost_usd: 0.01 });
    // The work is recorded: both steps and their tool results, and the run's end with the budget it met.
    const runEnd = detail.json.history.findLast((r: { kind: string }) => r.kind === 'run_end');
    expect(runEnd).toMatchObject({ status: 'budget_reached', budget: 'session', steps: 2 });
    expect(detail.json.history.filter((r: { kind: string }) => r.kind === 'tool_result')).toHaveLength(2);

    // A message before the raise stops at once, without a model call.
    const before = await chatStream(h.url, { session_id: sessionId, message: 'again?' }, alice);
    expect(done(before.events)).toMatchObject({ status: 'budget_reached', budget: 'session', steps: 0 });
    expect(h.fake.requests).toHaveLength(2);

    // Over the deployment's maximum: refused, naming the field; an editor may not raise it.
    const tooMuch = await send(h, 'PUT', `/sessions/${sessionId}/budget`, alice, { max_cost_usd: 5 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.error).toMatchObject({ field: 'max_cost_usd', message: expect.stringContaining('ZERO_BUDGET_SESSION_MAX_USD') });
    const raised = await send(h, 'PUT', `/sessions/${sessionId}/budget`, alice, { max_cost_usd: 0.5 });
    expect(raised).toMatchObject({ status: 200, json: { budget: 'session', spent_usd: 0.012, limit_usd: 0.5, limit_set_by: 'alice' } });

    h.fake.reset();
    h.fake.script({ text: 'Carrying on: done.', usage: { input_tokens: 1000, output_tokens: 200 } });
    const after = await chatStream(h.url, { session_id: sessionId, message: 'go on' }, alice);
    expect(done(after.events)).toMatchObject({ status: 'completed', steps: 1 });
    expect((await send(h, 'GET', `/sessions/${sessionId}`, alice)).json.spend.cost_usd).toBe(0.018);
  });

  it("refuses a user whose day's budget is spent, says why, and lets them on once an administrator raises it", async () => {
    const bob = await h.userHeaders('bob');
    // Only an administrator sets a user's budget.
    expect((await send(h, 'PUT', '/admin/budgets/users/bob', bob, { daily_usd: 100 })).status).toBe(403);
    expect((await send(h, 'PUT', '/admin/budgets/users/bob', DEV, { daily_usd: 0.005 })).json).toMatchObject({ budget: 'user', limit_usd: 0.005, limit_set_by: 'dev' });

    h.fake.script(...looping(20));
    const run = await chatStream(h.url, { agent_id: 'tester', message: 'loop' }, bob);
    expect(done(run.events)).toMatchObject({ status: 'budget_reached', budget: 'user', steps: 1, reason: expect.stringContaining('daily budget') });

    const refused = await send(h, 'POST', '/chat', bob, { agent_id: 'tester', message: 'one more' });
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({ code: 'budget_reached', budget: 'user', limit_usd: 0.005, message: expect.stringContaining('your daily budget is spent') });
    // Nothing happened: no model call, no session.
    expect(h.fake.requests).toHaveLength(1);
    expect((await send(h, 'GET', '/sessions', bob)).json.sessions).toHaveLength(1);
    // Bob reads his own day; another user's is an administrator's to read.
    expect((await send(h, 'GET', '/admin/budgets/users/bob', bob)).json).toMatchObject({ spent_usd: 0.006, limit_usd: 0.005 });
    expect((await send(h, 'GET', '/admin/budgets/users/alice', bob)).status).toBe(403);

    await send(h, 'PUT', '/admin/budgets/users/bob', DEV, { daily_usd: 1 });
    h.fake.reset();
    h.fake.script({ text: 'Back.' });
    expect(done((await chatStream(h.url, { agent_id: 'tester', message: 'now?' }, bob)).events)).toMatchObject({ status: 'completed' });
  });

  it("counts delegated runs against the caller's budget", async () => {
    const carol = await h.userHeaders('carol');
    await send(h, 'PUT', '/admin/budgets/users/carol', DEV, { daily_usd: 0.01 });
    // The caller delegates; its delegate loops. The delegate's steps spend the same budget and it stops there.
    h.fake.script({ toolCalls: [{ name: 'delegate_agent', input: { agent_id: 'relay-b', task: 'loop' } }], usage: { input_tokens: 1000, output_tokens: 200 } }, ...looping(20));
    const run = await chatStream(h.url, { agent_id: 'relay-a', message: 'hand it off' }, carol);
    const back = run.events.find((e) => e.type === 'agent_switch' && e.reason === 'return');
    expect(back).toMatchObject({ status: 'budget_reached' });
    expect(done(run.events)).toMatchObject({ status: 'budget_reached', budget: 'user' });
    // One step of the caller, one of the delegate, then nothing more.
    expect(h.fake.requests).toHaveLength(2);
    expect((await send(h, 'GET', '/admin/budgets/users/carol', DEV)).json.spent_usd).toBe(0.012);
  });

  it("holds a session's budget against eight delegates started at once: spent passes it by at most one call's reservation", async () => {
    const erin = await h.userHeaders('erin');
    const created = await send(h, 'POST', '/sessions', erin, { agent_id: 'relay-a', max_cost_usd: 0.1 });
    const sessionId = created.json.session.session_id;
    // The caller asks for eight delegates in one step; each delegate loops on dear steps until a budget stops it.
    let split = false;
    h.fake.respondWith((request) => {
      if (!JSON.stringify(request.body.system).includes('Relay relay-a')) return { toolCalls: [{ name: 'echo', input: { text: 'more' } }], usage: dear };
      if (split) return { text: 'All parts are in.', usage: dear };
      split = true;
      return { toolCalls: Array.from({ length: 8 }, (_, i) => ({ name: 'delegate_agent', input: { agent_id: 'relay-b', task: `part ${i}` } })), usage: dear };
    });
    const run = await chatStream(h.url, { session_id: sessionId, message: 'split it eight ways' }, erin);
    expect(done(run.events)).toMatchObject({ status: 'budget_reached', budget: 'session' });
    expect(run.events.filter((e) => e.type === 'agent_switch' && e.reason === 'delegate')).toHaveLength(8);
    const spend = (await send(h, 'GET', `/sessions/${sessionId}`, erin)).json.spend;
    // Spent up to the budget (the delegates were not refused while it lasted), and past it by less than one call.
    expect(spend.cost_usd).toBeGreaterThanOrEqual(0.1);
    expect(spend.cost_usd).toBeLessThanOrEqual(0.1 + ONE_RESERVATION_USD);
    expect(spend.cost_usd).toBeCloseTo(h.fake.requests.length * 0.01503, 9);
    const budget = await send(h, 'PUT', `/sessions/${sessionId}/budget`, erin, { max_cost_usd: 0.1 });
    expect(budget.json).toMatchObject({ held_usd: 0 });
  });

  it("holds a user's day against twelve chats at once: spent passes it by at most one call's reservation", async () => {
    const fay = await h.userHeaders('fay');
    await send(h, 'PUT', '/admin/budgets/users/fay', DEV, { daily_usd: 0.1 });
    h.fake.respondWith(() => ({ toolCalls: [{ name: 'echo', input: { text: 'again' } }], usage: dear }));
    const chats = await Promise.all(Array.from({ length: 12 }, (_, i) => send(h, 'POST', '/chat', fay, { agent_id: 'tester', message: `chat ${i}` })));
    // Each chat either ran until the day was spent, or came after and was refused before it started.
    for (const chat of chats) {
      if (chat.status === 402) expect(chat.json.error).toMatchObject({ code: 'budget_reached', budget: 'user' });
      else expect(chat.json).toMatchObject({ status: 'budget_reached' });
    }
    const day = (await send(h, 'GET', '/admin/budgets/users/fay', DEV)).json;
    expect(day.spent_usd).toBeGreaterThanOrEqual(0.1);
    expect(day.spent_usd).toBeLessThanOrEqual(0.1 + ONE_RESERVATION_USD);
    expect(day.spent_usd).toBeCloseTo(h.fake.requests.length * 0.01503, 9);
    expect(day.held_usd).toBe(0);
  });

  it('lets go of a reservation that expired (its process died, its run never carried on): it holds the budget no longer', async () => {
    const hank = await h.userHeaders('hank');
    await send(h, 'PUT', '/admin/budgets/users/hank', DEV, { daily_usd: 0.05 });
    const { spend } = await h.server.runtime.budgets!();
    // What a dead process of another run left: a $1 reservation, which expired a moment ago.
    const left = await spend.reserve({ scope: 'user', userId: 'hank', day: dayOf() }, { id: 'run_dead#0.1', micros: 1_000_000, until: Date.now() - 1 }, 50_000, {});
    expect(left).toMatchObject({ held_micros: 1_000_000 });
    expect((await send(h, 'GET', '/admin/budgets/users/hank', DEV)).json).toMatchObject({ spent_usd: 0, held_usd: 1 });

    h.fake.script({ text: 'Still here.', usage: { input_tokens: 1000, output_tokens: 200 } });
    expect((await send(h, 'POST', '/chat', hank, { agent_id: 'tester', message: 'hello' })).json).toMatchObject({ status: 'completed' });
    expect((await send(h, 'GET', '/admin/budgets/users/hank', DEV)).json).toMatchObject({ spent_usd: 0.006, held_usd: 0 });
  });

  it('reserves against what a counter written before reservations had spent', async () => {
    const ivy = await h.userHeaders('ivy');
    await send(h, 'PUT', '/admin/budgets/users/ivy', DEV, { daily_usd: 0.05 });
    // Ivy's day as an earlier version kept it: $0.04 spent, and no `committed_micros` (nothing was held then).
    const day = (await send(h, 'GET', '/admin/budgets/users/ivy', DEV)).json.day;
    await h.server.runtime.sessions.db.send(
      new PutCommand({ TableName: h.stack.store.table, Item: { pk: 'USER#ivy', sk: `SPEND#${day}`, v: 1, cost_micros: 40_000, calls: 4, limit_micros: 50_000 } }),
    );
    h.fake.respondWith(() => ({ toolCalls: [{ name: 'echo', input: { text: 'again' } }], usage: dear }));
    await Promise.all(Array.from({ length: 6 }, (_, i) => send(h, 'POST', '/chat', ivy, { agent_id: 'tester', message: `chat ${i}` })));
    // The $0.01 left is all six chats may reserve: one call at a time, and the earlier $0.04 counts.
    const spent = (await send(h, 'GET', '/admin/budgets/users/ivy', DEV)).json;
    expect(spent.spent_usd).toBeGreaterThanOrEqual(0.05);
    expect(spent.spent_usd).toBeLessThanOrEqual(0.05 + ONE_RESERVATION_USD);
    expect(spent.held_usd).toBe(0);
  });

  it('shows the deployment day to administrators only', async () => {
    const dave = await h.userHeaders('dave');
    expect((await send(h, 'GET', '/admin/budgets/deployment', dave)).status).toBe(403);
    const day = await send(h, 'GET', '/admin/budgets/deployment', DEV);
    expect(day.json).toMatchObject({ budget: 'deployment', limit_usd: null });
    expect(day.json.spent_usd).toBeGreaterThan(0);
  });
});

/**
 * Delays every write of a spend counter or usage cell by `ms` (a DynamoDB client middleware on the server's
 * own client): a store far slower than the local one, where what keeps the figures right is that a run waits
 * for its spend writes in flight (before its next check, and before it ends), not that they happen to be quick.
 */
function slowSpendWrites(h: Harness, ms: number) {
  h.server.runtime.sessions.db.middlewareStack.add(
    (next, context) => async (args) => {
      const key = JSON.stringify((args.input as { Key?: unknown }).Key ?? {});
      if (/^Update(Item)?Command$/.test(context.commandName ?? '') && /"sk":"(SPEND|C#)/.test(key)) await new Promise((resolve) => setTimeout(resolve, ms));
      return next(args);
    },
    { step: 'initialize', name: 'slowSpendWrites' },
  );
}

describe('budgets on a store whose spend writes take 300 ms', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxSteps: 30 }, budgets: { sessionMaxMicros: 1_000_000 } });
    slowSpendWrites(h, 300);
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it("stops a looping run within one step of its budget, and shows every step's spend and usage as the chat ends", async () => {
    const gus = await h.userHeaders('gus');
    const created = await send(h, 'POST', '/sessions', gus, { agent_id: 'tester', max_cost_usd: 0.01 });
    const sessionId = created.json.session.session_id;
    h.fake.script(...looping(20));
    const run = await chatStream(h.url, { session_id: sessionId, message: 'loop forever' }, gus);
    // The second step's $0.006 is still being written when the third step would start: it is waited for.
    expect(done(run.events)).toMatchObject({ status: 'budget_reached', budget: 'session', steps: 2 });
    expect(h.fake.requests).toHaveLength(2);
    // Read the moment the chat ends: both steps are there.
    expect((await send(h, 'GET', `/sessions/${sessionId}`, gus)).json.spend).toMatchObject({ cost_usd: 0.012, input_tokens: 2000, output_tokens: 400 });
    expect((await send(h, 'GET', '/usage?group_by=session', gus)).json.groups).toMatchObject([{ key: sessionId, cost_usd: 0.012, runs: 1, tool_calls: { echo: 2 } }]);

    // A run that completes (no check after its last step): its last step's writes are waited for before the chat ends.
    await send(h, 'PUT', `/sessions/${sessionId}/budget`, gus, { max_cost_usd: 0.5 });
    h.fake.reset();
    h.fake.script({ text: 'Carrying on: done.', usage: { input_tokens: 1000, output_tokens: 200 } });
    expect(done((await chatStream(h.url, { session_id: sessionId, message: 'go on' }, gus)).events)).toMatchObject({ status: 'completed', steps: 1 });
    expect((await send(h, 'GET', `/sessions/${sessionId}`, gus)).json.spend).toMatchObject({ cost_usd: 0.018, input_tokens: 3000 });
    expect((await send(h, 'GET', '/usage?group_by=session', gus)).json.groups).toMatchObject([{ key: sessionId, cost_usd: 0.018, runs: 2 }]);
  });
});

/** A server killed (SIGKILL) in the middle of a run, and another one carrying the run on, on the same stores. */
describe('budgets and usage across a killed process', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1000 });
  });
  afterAll(() => h.close());

  const child = () => startChildServer({ ...childConfig(h, 1000), budgets: { userDailyMicros: 10_000_000, sessionMaxMicros: 10_000_000 } });

  it("counts in GET /usage every step the killed process ran, as its spend, and its call in flight holds nothing once the run is carried on", async () => {
    h.fake.script(
      { toolCalls: [{ name: 'echo', input: { text: 'one' } }], usage: { input_tokens: 1000, output_tokens: 200 } },
      { toolCalls: [{ name: 'echo', input: { text: 'two' } }], usage: { input_tokens: 1100, output_tokens: 300 } },
      // The third call streams slowly: the process dies during it, its reservation held.
      { text: Array.from({ length: 50 }, (_, i) => `partial${i} `), deltaDelayMs: 40 },
      { text: 'Done after the restart.', usage: { input_tokens: 1300, output_tokens: 50 } },
    );
    const first = await child();
    const { sessionId } = await chatUntil(first.url, { agent_id: 'tester', message: 'three steps' }, (e) => e.type === 'text');
    const held = await getJson(`${first.url}/api/v2/admin/budgets/users/dev`);
    expect(held.held_usd).toBeGreaterThan(0);
    await first.kill();

    const second = await child();
    try {
      // Watching the session carries the run on.
      const response = await fetch(`${second.url}/api/v2/sessions/${sessionId}/events`, { headers: DEV });
      for await (const event of readSse(response)) if (event.type === 'done') break;
      const spend = (await getJson(`${second.url}/api/v2/sessions/${sessionId}`)).spend;
      expect(spend).toMatchObject({ input_tokens: 3400, output_tokens: 550 });
      const usage = await getJson(`${second.url}/api/v2/usage?group_by=session`);
      expect(usage.groups).toEqual([
        { key: sessionId, runs: 1, cost_usd: spend.cost_usd, input_tokens: 3400, output_tokens: 550, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, tool_calls: { echo: 2 } },
      ]);
      // The dead process's hold is let go by the run it left (not only once it expires, minutes later).
      const day = await getJson(`${second.url}/api/v2/admin/budgets/users/dev`);
      expect(day).toMatchObject({ spent_usd: spend.cost_usd, held_usd: 0 });
    } finally {
      await second.kill();
    }
  });
});

async function getJson(url: string) {
  const response = await fetch(url, { headers: DEV });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}
