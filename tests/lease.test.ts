import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLostError, driveSession, type Runtime } from '@zero/core';
import { startChildServer } from './support/child';
import { DEV_KEY, TEST_API_KEY, getJson, postJson, startHarness, type Harness } from './support/harness';
import { chatUntil } from './support/sse';

describe('one run at a time, under a fenced lease', () => {
  let h: Harness;
  let rt: Runtime;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1500 });
    rt = h.server.runtime;
  });
  afterAll(() => h.close());

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

  it('a process killed while holding the lease: after expiry the next message runs', async () => {
    const child = await startChildServer({
      store: h.stack.store,
      anthropic: { apiKey: TEST_API_KEY, baseURL: h.fake.url, maxRetries: 0 },
      leaseTtlMs: 1500,
      auth: { staticKeys: [{ key: DEV_KEY, user: { id: 'dev', name: 'Developer' } }] },
    });
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
});
