import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LeaseLostError } from '@zero/runtime/store/lease-store';
import { driveSession } from '@zero/runtime/sessions/drive';
import type { Runtime } from '../functions/create-runtime';
import { POSITION_BLOCKS } from '@zero/runtime/store';
import { startChildServer } from './support/child';
import { getJson, postJson, startHarness, type Harness, childConfig } from './support/harness';
import { chatStream, chatUntil } from './support/sse';

describe('one run at a time, under a fenced lease', () => {
  let h: Harness;
  let rt: Runtime;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1500 });
    rt = h.server.runtime;
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  async function newSession(id: string) {
    await rt.sessions.createSession({ session_id: id, title: id, agent_id: 'tester', created_at: 'now', updated_at: 'now' });
  }

  it('a stalled holder whose lease was taken over cannot write again', async () => {
    await newSession('stalled');
    const a = (await rt.leases.acquire('stalled', 'instance-a', 'run-a'))!;
    expect(a.takeover).toBe(false);
    expect(await rt.leases.acquire('stalled', 'instance-b', 'run-b')).toBeUndefined();
    // A reserves a log position, then stalls past its lease.
    const reserved = await rt.leases.allocate(a.lease, 'log');
    await new Promise((r) => setTimeout(r, 1600));

    // Another instance takes the expired lease over to answer the next message, sealing what A reserved.
    await rt.sessions.enqueue('stalled', { run_id: 'run-b', text: 'hello', at: 'now' });
    h.fake.script({ text: 'from B' });
    await driveSession(rt, 'stalled');
    await expect(rt.leases.allocate(a.lease, 'log')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(rt.leases.heartbeat(a.lease)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(
      rt.sessions.append('stalled', reserved.first, { kind: 'user_message', run_id: 'run-a', text: 'late write', agent_id: 'tester', model: 'm', voice_mode: 'full' }),
    ).rejects.toMatchObject({ code: 'conflict' });
    const log = await rt.sessions.readLog('stalled');
    expect(log.map((r) => r.kind)).toEqual(['void', 'user_message', 'assistant', 'run_end']);
    expect(log.some((r) => r.kind === 'user_message' && r.text === 'late write')).toBe(false);
  });

  it('a stalled holder cannot write into the positions its acquire reserved, nor into a block reserved ahead', async () => {
    await newSession('stalled-blocks');
    const a = (await rt.leases.acquire('stalled-blocks', 'instance-a', 'run-a', POSITION_BLOCKS))!;
    // The acquire's own write reserved the first positions of both logs: no round trip before the first record.
    expect(a.lease.reserved.log).toHaveLength(POSITION_BLOCKS.log);
    expect(a.lease.reserved.event).toHaveLength(POSITION_BLOCKS.event);
    const ahead = await rt.leases.allocate(a.lease, 'log', POSITION_BLOCKS.log, 'run-a');
    const held = [...a.lease.reserved.log, ...Array.from({ length: POSITION_BLOCKS.log }, (_, i) => ahead.first + i)];
    await new Promise((r) => setTimeout(r, 1600));

    await rt.sessions.enqueue('stalled-blocks', { run_id: 'run-b', text: 'hello', at: 'now' });
    h.fake.script({ text: 'from B' });
    await driveSession(rt, 'stalled-blocks');
    for (const seq of [held[0]!, held[POSITION_BLOCKS.log - 1]!, held.at(-1)!]) {
      await expect(
        rt.sessions.append('stalled-blocks', seq, { kind: 'user_message', run_id: 'run-a', text: 'late write', agent_id: 'tester', model: 'm', voice_mode: 'full' }),
      ).rejects.toMatchObject({ code: 'conflict' });
    }
    const log = (await rt.sessions.readLog('stalled-blocks')).filter((r) => r.kind !== 'void');
    expect(log.map((r) => r.kind)).toEqual(['user_message', 'assistant', 'run_end']);
    expect(log[0]).toMatchObject({ run_id: 'run-b', text: 'hello' });
  });

  it('a process killed while holding the lease: after expiry the next message runs', async () => {
    const child = await startChildServer(childConfig(h, 1500));
    try {
      h.fake.script(
        { text: 'Starting a long job.', toolCalls: [{ name: 'slow', input: { ms: 1500 } }] },
        { text: 'The long job is done.' },
      );
      const { sessionId } = await chatUntil(child.url, { agent_id: 'tester', message: 'first, then die' }, (e) => e.type === 'tool_call');
      // Die mid tool call, once the step's model turn is durable.
      for (let i = 0; i < 100; i++) {
        const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
        if (json.history.some((r: { kind: string }) => r.kind === 'assistant')) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await child.kill();
      h.fake.script({ text: 'I am still here.' });
      const started = Date.now();
      const next = await postJson(`${h.url}/api/v2/chat`, { session_id: sessionId, message: 'are you there?' });
      expect(next.status).toBe(200);
      expect(next.json).toMatchObject({ status: 'completed', text: 'I am still here.' });
      expect(Date.now() - started).toBeLessThan(15_000);
      const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
      const kinds = json.history.map((r: { kind: string }) => r.kind);
      // The dead run was carried on first (its tool call executed again, its answer given), then the new message.
      expect(kinds).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end', 'user_message', 'assistant', 'run_end']);
      expect(json.history[2]).toMatchObject({ kind: 'tool_result', content: 'waited 1500 ms' });
      expect(json.history[3].content).toEqual([{ type: 'text', text: 'The long job is done.' }]);
    } finally {
      await child.kill();
    }
  });
  /** A session made through the API, answered by the test agent. */
  async function apiSession(title: string) {
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { title, agent_id: 'tester' });
    return json.session.session_id as string;
  }

  it('cancel during the second of two queued messages stops the second run, not the finished first', async () => {
    const id = await apiSession('two queued');
    h.fake.script(
      { toolCalls: [{ name: 'slow', input: { ms: 300 } }] },
      { text: 'first answered' },
      { toolCalls: [{ name: 'slow', input: { ms: 3000 } }] },
      { text: 'second answered' },
    );
    const first = await chatUntil(h.url, { session_id: id, message: 'first' }, (e) => e.type === 'tool_call');
    // Queued behind the first; the first run's drain goes on to it.
    const second = await chatUntil(h.url, { session_id: id, message: 'second' }, (e) => e.type === 'tool_call');
    const secondRun = second.events.find((e) => e.type === 'start')!.run_id;

    const cancel = await postJson(`${h.url}/api/v2/sessions/${id}/cancel`, {});
    expect(cancel.status).toBe(202);
    expect(cancel.json.run_id).toBe(secondRun);
    expect((await second.rest()).at(-1)).toMatchObject({ type: 'done', run_id: secondRun, status: 'cancelled' });
    expect((await first.rest()).at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(json.history.at(-1)).toMatchObject({ kind: 'run_end', run_id: secondRun, status: 'cancelled' });
  });

  it('reject on an idle session: of a burst of 50 messages, exactly one is accepted', async () => {
    const id = await apiSession('burst');
    h.fake.script({ text: Array.from({ length: 20 }, (_, i) => `part ${i} `), deltaDelayMs: 150 });
    const burst = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postJson(`${h.url}/api/v2/chat`, { session_id: id, message: `message ${i}`, strategy: 'reject' })),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const accepted = burst.find((r) => r.status === 200)!;
    expect(accepted.json).toMatchObject({ status: 'completed' });
    for (const refused of burst.filter((r) => r.status === 409)) expect(refused.json.error.code).toBe('conflict');
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(json.history.filter((r: { kind: string }) => r.kind === 'user_message')).toHaveLength(1);
    expect(json.queued).toEqual([]);
  });

  it('a storage failure before the run starts: the chat stream still ends, with done', async () => {
    const id = await apiSession('broken store');
    // The session's event counter can no longer be updated: the store refuses every event position.
    await rt.sessions.db.send(
      new UpdateCommand({ TableName: rt.sessions.table, Key: { pk: `SESSION#${id}`, sk: 'LEASE' }, UpdateExpression: 'SET next_event = :s', ExpressionAttributeValues: { ':s': 'unusable' } }),
    );
    h.fake.script({ text: 'never asked' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'hello?' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(events.find((e) => e.type === 'error')).toBeTruthy();
    expect(h.fake.requests).toHaveLength(0);
  });
});
