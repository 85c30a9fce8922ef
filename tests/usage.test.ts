import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV, send, startHarness, type Harness } from './support/harness';

const step = (input: number, output: number) => ({ usage: { input_tokens: input, output_tokens: output } });

describe('GET /usage', () => {
  let h: Harness;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  const sessions: Record<string, { id: string; cost: number }> = {};
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.userHeaders('alice');
    bob = await h.userHeaders('bob');
    // Alice's run calls echo twice, then answers; bob's answers at once.
    h.fake.script(
      { toolCalls: [{ name: 'echo', input: { text: 'a' } }], ...step(1000, 200) },
      { toolCalls: [{ name: 'echo', input: { text: 'b' } }], ...step(1000, 200) },
      { text: 'done', ...step(1000, 200) },
      { text: 'hi', ...step(500, 100) },
    );
    for (const [name, headers] of [['alice', alice], ['bob', bob]] as const) {
      const chat = await send(h, 'POST', '/chat', headers, { agent_id: 'tester', message: 'go' });
      expect(chat.json.status).toBe('completed');
      const spend = (await send(h, 'GET', `/sessions/${chat.json.session_id}`, headers)).json.spend;
      sessions[name] = { id: chat.json.session_id, cost: spend.cost_usd };
    }
  });
  afterAll(() => h.close());

  const usage = async (headers: Record<string, string>, query: string) => send(h, 'GET', `/usage?${query}`, headers);

  it("gives administrators every user's tokens, cost, runs and tool calls by tool, from counters kept step by step", async () => {
    const byUser = (await usage(DEV, 'group_by=user')).json;
    expect(byUser.user_id).toBeNull();
    expect(byUser.groups).toEqual([
      { key: 'alice', runs: 1, cost_usd: sessions.alice!.cost, input_tokens: 3000, output_tokens: 600, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, tool_calls: { echo: 2 } },
      { key: 'bob', runs: 1, cost_usd: sessions.bob!.cost, input_tokens: 500, output_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, tool_calls: {} },
    ]);
    expect(byUser.total).toMatchObject({ runs: 2, input_tokens: 3500, tool_calls: { echo: 2 } });
    expect(byUser.total.cost_usd).toBeCloseTo(sessions.alice!.cost + sessions.bob!.cost, 9);

    expect((await usage(DEV, 'group_by=agent')).json.groups).toMatchObject([{ key: 'tester', runs: 2, input_tokens: 3500 }]);
    expect((await usage(DEV, 'group_by=session')).json.groups.map((g: { key: string }) => g.key).sort()).toEqual([sessions.alice!.id, sessions.bob!.id].sort());
    const byDay = (await usage(DEV, 'group_by=day')).json;
    expect(byDay.groups).toMatchObject([{ key: byDay.to, runs: 2, output_tokens: 700 }]);
    // An administrator can look at one user.
    expect((await usage(DEV, 'group_by=session&user_id=bob')).json.groups).toMatchObject([{ key: sessions.bob!.id, runs: 1 }]);
  });

  it('shows a user only their own usage', async () => {
    const mine = (await usage(alice, 'group_by=session')).json;
    expect(mine.user_id).toBe('alice');
    expect(mine.groups).toMatchObject([{ key: sessions.alice!.id, runs: 1, tool_calls: { echo: 2 } }]);
    expect((await usage(alice, 'group_by=user')).json.groups).toMatchObject([{ key: 'alice' }]);
    expect((await usage(bob, 'group_by=day')).json.total).toMatchObject({ runs: 1, input_tokens: 500 });
    const refused = await usage(alice, 'user_id=bob');
    expect(refused.status).toBe(403);
  });

  it('reads a day counted the former way (six items per run end) beside the cells', async () => {
    const db = h.server.runtime.sessions.db;
    const item = (sk: string, runs: number, input: number) => ({ pk: 'USAGE#2020-03-03', sk, runs, cost_micros: input * 3, input_tokens: input, output_tokens: 0, 'tool:echo': runs });
    for (const it of [item('ALL', 3, 3000), item('USER#alice', 2, 2000), item('USER#bob', 1, 1000), item('AGENT#tester', 3, 3000), item('SESSION#s1', 2, 2000), item('SESSION#s2', 1, 1000), item('U#alice#AGENT#tester', 2, 2000), item('U#alice#SESSION#s1', 2, 2000), item('U#bob#AGENT#tester', 1, 1000), item('U#bob#SESSION#s2', 1, 1000)]) {
      await db.send(new PutCommand({ TableName: h.stack.store.table, Item: it }));
    }
    const day = 'from=2020-03-03&to=2020-03-03';
    expect((await usage(DEV, `${day}&group_by=user`)).json.groups).toMatchObject([{ key: 'alice', runs: 2, input_tokens: 2000, tool_calls: { echo: 2 } }, { key: 'bob', runs: 1 }]);
    expect((await usage(DEV, `${day}&group_by=day`)).json.groups).toMatchObject([{ key: '2020-03-03', runs: 3, cost_usd: 0.009 }]);
    expect((await usage(alice, `${day}&group_by=session`)).json.groups).toMatchObject([{ key: 's1', runs: 2 }]);
    expect((await usage(bob, `${day}&group_by=day`)).json.groups).toMatchObject([{ key: '2020-03-03', runs: 1, input_tokens: 1000 }]);
  });

  it('reads only the days asked for and refuses a bad query naming the field', async () => {
    expect((await usage(DEV, 'from=2020-01-01&to=2020-01-31&group_by=user')).json).toMatchObject({ from: '2020-01-01', to: '2020-01-31', groups: [], total: { runs: 0 } });
    expect((await usage(DEV, 'group_by=week')).json.error).toMatchObject({ code: 'invalid_request', field: 'group_by' });
    expect((await usage(DEV, 'from=2026-02-31')).json.error).toMatchObject({ field: 'from' });
    expect((await usage(DEV, 'from=2020-02-01&to=2020-01-01')).json.error).toMatchObject({ field: 'from' });
    expect((await usage(DEV, 'from=2019-01-01&to=2020-01-01')).status).toBe(400);
  });
});
