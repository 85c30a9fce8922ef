import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import { createDynamoClient } from '@zero/runtime/store/clients';
import type { RunningServer } from '../local/server';
import { DEV, send, startHarness, type Harness, startSecondInstance } from './support/harness';
import { chatUntil, type ReceivedEvent } from './support/sse';


/** A model that keeps calling a slow tool: the run is active until someone stops it. */
const slowLoop = (turns: number) => Array.from({ length: turns }, () => ({ toolCalls: [{ name: 'slow', input: { ms: 150 } }], usage: { input_tokens: 1000, output_tokens: 200 } }));
const last = (events: ReceivedEvent[]) => events.at(-1) as Extract<ReceivedEvent, { type: 'done' }>;

describe('the kill switch, across two instances on the same stores', () => {
  let h: Harness;
  let other: RunningServer;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxSteps: 200 } });
    other = await startSecondInstance(h, { limits: { ...DEFAULT_LIMITS, maxSteps: 200 }, permissions: { side_effects: 'allow' } });
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });
  afterEach(() => h.fake.reset());

  it('lists a run of one instance on the other, which cancels it; both actions are audited', async () => {
    const alice = await h.userHeaders('alice');
    h.fake.script(...slowLoop(100));
    const run = await chatUntil(h.url, { agent_id: 'tester', message: 'keep going' }, (e) => e.type === 'tool_result', alice);

    // Only administrators see every session's runs.
    expect((await send(other, 'GET', '/admin/runs', alice)).status).toBe(403);
    const listed = await send(other, 'GET', '/admin/runs', DEV);
    const mine = listed.json.runs.find((r: { session_id: string }) => r.session_id === run.sessionId);
    expect(mine).toMatchObject({ user_id: 'alice', agent_id: 'tester', instance: h.server.runtime.instanceId });
    expect(mine.steps).toBeGreaterThanOrEqual(1);
    expect(mine.cost_usd).toBeGreaterThan(0);
    expect(mine.instance).not.toBe(other.runtime.instanceId);
    // Its item, like every item the table's TTL reads, expires in epoch seconds (milliseconds would keep it for ever).
    const scanned = await createDynamoClient(h.stack.store).send(new ScanCommand({ TableName: h.stack.store.table, FilterExpression: 'attribute_exists(expires_at)' }));
    const nowS = Date.now() / 1000;
    expect(scanned.Items!.find((item) => item.run_id === mine.run_id && String(item.sk).startsWith('RUN#'))?.expires_at).toBeGreaterThan(nowS);
    for (const item of scanned.Items!) expect({ key: `${item.pk} ${item.sk}`, in_seconds: item.expires_at > nowS - 86_400 * 400 && item.expires_at < nowS + 86_400 * 400 }).toEqual({ key: `${item.pk} ${item.sk}`, in_seconds: true });

    const cancelled = await send(other, 'POST', `/admin/runs/${mine.run_id}/cancel`, DEV);
    expect(cancelled.json).toMatchObject({ stopped_runs: [mine.run_id], audit: { action: 'cancel_run', by: 'dev', target: mine.run_id } });
    const events = await run.rest();
    expect(last(events)).toMatchObject({ type: 'done', status: 'cancelled' });
    // Gone from the list once it ended; the audit log names who did it and when.
    expect((await send(other, 'GET', '/admin/runs', DEV)).json.runs.map((r: { run_id: string }) => r.run_id)).not.toContain(mine.run_id);
    const audit = await send(h, 'GET', '/admin/audit', DEV);
    expect(audit.json.records[0]).toMatchObject({ action: 'cancel_run', by: 'dev', target: mine.run_id, at: expect.any(String) });
    expect((await send(other, 'POST', '/admin/runs/run_nope/cancel', DEV)).status).toBe(404);
  });

  it('reads active-run items an earlier version wrote (expires_at in milliseconds): a dead one is not listed, a live one is', async () => {
    const db = createDynamoClient(h.stack.store);
    const item = (runId: string, expiresAtMs: number) => ({ pk: 'RUNS', sk: `RUN#${runId}`, v: 1, run_id: runId, session_id: `s-${runId}`, user_id: 'old', agent_id: 'tester', instance: 'old:1', started_at: new Date().toISOString(), expires_at: expiresAtMs });
    await db.send(new PutCommand({ TableName: h.stack.store.table, Item: item('run_old_dead', Date.now() - 60_000) }));
    await db.send(new PutCommand({ TableName: h.stack.store.table, Item: item('run_old_live', Date.now() + 60_000) }));
    try {
      const ids = (await send(h, 'GET', '/admin/runs', DEV)).json.runs.map((r: { run_id: string }) => r.run_id);
      expect(ids).toContain('run_old_live');
      expect(ids).not.toContain('run_old_dead');
    } finally {
      for (const runId of ['run_old_dead', 'run_old_live']) await db.send(new DeleteCommand({ TableName: h.stack.store.table, Key: { pk: 'RUNS', sk: `RUN#${runId}` } }));
    }
  });

  it("suspending a user stops their run and refuses their requests with 403 until they are resumed", async () => {
    const bob = await h.userHeaders('bob');
    h.fake.script(...slowLoop(100));
    const run = await chatUntil(h.url, { agent_id: 'tester', message: 'loop' }, (e) => e.type === 'tool_result', bob);
    const calls = () => h.fake.requests.length;

    expect((await send(other, 'POST', '/admin/users/bob/suspend', bob, {})).status).toBe(403);
    const suspended = await send(other, 'POST', '/admin/users/bob/suspend', DEV, { reason: 'a runaway script' });
    expect(suspended.json).toMatchObject({ audit: { action: 'suspend_user', by: 'dev', target: 'bob' }, stopped_runs: [expect.any(String)] });
    expect(last(await run.rest())).toMatchObject({ status: 'cancelled' });

    const refused = await send(other, 'POST', '/chat', bob, { agent_id: 'tester', message: 'again' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'user_suspended', message: expect.stringContaining('suspended') });
    const before = calls();
    expect((await send(other, 'GET', '/sessions', bob)).status).toBe(403);
    expect(calls()).toBe(before);

    await send(other, 'POST', '/admin/users/bob/resume', DEV);
    expect((await send(other, 'GET', '/sessions', bob)).status).toBe(200);
  });
});
