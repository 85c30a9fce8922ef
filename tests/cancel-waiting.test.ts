import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEV, getJson, postJson, send, startHarness, type Harness } from './support/harness';
import { chatStream, readSse, type ReceivedEvent } from './support/sse';

/** A run that waits for a person holds no lease and runs nothing, but it is a run all the same: a cancel ends it. */
describe('cancelling a run that waits for a decision', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-cancel-waiting-'));
    process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => h.fake.reset());

  /** A session whose `ledger` call waits for a decision; its id, the call's id and the run's id. */
  async function waitingSession() {
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    expect((await send(h, 'PUT', `/sessions/${id}/permissions`, DEV, { permissions: { ledger: 'ask' } })).status).toBe(200);
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'never' } }] }, { text: 'Should not be asked.' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'Write never.' });
    const asked = events.find((e) => e.type === 'confirmation_required') as Extract<ReceivedEvent, { type: 'confirmation_required' }>;
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval' });
    return { id, callId: asked.id, runId: asked.run_id! };
  }

  /** The session's event log from the start until a `done` that ends `runId` (not a wait). */
  async function eventsUntilEnd(id: string, runId: string) {
    const controller = new AbortController();
    const response = await fetch(`${h.url}/api/v2/sessions/${id}/events?after=0`, { headers: DEV, signal: controller.signal });
    const events: ReceivedEvent[] = [];
    for await (const event of readSse(response)) {
      events.push(event);
      if (event.type === 'done' && event.run_id === runId && event.status !== 'awaiting_approval') break;
    }
    controller.abort();
    return events;
  }

  it('POST /cancel ends the waiting run as cancelled, with its done; its call then refuses a decision with 409 and never runs', async () => {
    const { id, callId, runId } = await waitingSession();
    const cancelled = await postJson(`${h.url}/api/v2/sessions/${id}/cancel`, {});
    expect(cancelled.status).toBe(202);
    expect(cancelled.json).toEqual({ cancelled: true, run_id: runId });

    const events = await eventsUntilEnd(id, runId);
    expect(events.at(-1)).toMatchObject({ type: 'done', run_id: runId, status: 'cancelled', reason: 'cancelled by request' });
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(json.history.at(-1)).toMatchObject({ kind: 'run_end', run_id: runId, status: 'cancelled' });
    expect(json.awaiting_approval).toBeNull();
    expect(json.session.awaiting_approval_since ?? null).toBeNull();

    const late = await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, DEV, { decision: 'allow' });
    expect(late.status).toBe(409);
    expect(h.tools.executions.get('ledger') ?? 0).toBe(0);
    // Cancelling again: nothing runs, nothing waits.
    expect((await postJson(`${h.url}/api/v2/sessions/${id}/cancel`, {})).status).toBe(409);

    // The session goes on: the next message is answered, its conversation well formed.
    h.fake.script({ text: 'Fresh start.' });
    const next = await chatStream(h.url, { session_id: id, message: 'Something else.' });
    expect(next.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(h.fake.requests).toHaveLength(2);
  });

  it("/v1's user.interrupt ends a run waiting for a confirmation the same way", async () => {
    const { id, callId, runId } = await waitingSession();
    const sent = await postJson(`${h.url}/v1/sessions/${id}/events`, { events: [{ type: 'user.interrupt' }] });
    expect(sent.status).toBe(200);
    const events = await eventsUntilEnd(id, runId);
    expect(events.at(-1)).toMatchObject({ type: 'done', run_id: runId, status: 'cancelled' });
    // No decision was invented for the call, and the model was not asked again.
    expect(events.filter((e) => e.type === 'approval')).toEqual([]);
    expect(h.fake.requests).toHaveLength(1);
    const late = await postJson(`${h.url}/v1/sessions/${id}/events`, { events: [{ type: 'user.tool_confirmation', tool_use_id: callId, result: 'allow' }] });
    expect(late.status).toBe(409);
    const { json: session } = await getJson(`${h.url}/v1/sessions/${id}`);
    expect(session.status).toBe('idle');
  });
});
