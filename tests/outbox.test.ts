import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../functions/create-runtime';
import { enqueue, eventBody, publishEvent, startOutboxSweeps, sweepOutbox, type ZeroEvent } from '@zero/integrations/subscriptions';
import { startSubscriber, verifiedStandardWebhook, type Delivery } from './support/subscriber';
import { DEV, storeEnv, send, startHarness, type Harness } from './support/harness';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const subscriber = () => startSubscriber('/zero-events/t0ken-in-the-path');
const verified = (delivery: Delivery) => verifiedStandardWebhook(delivery, SECRET);

const runEnded = (runId: string): ZeroEvent => ({ type: 'run.completed', key: runId, data: { session_id: `ses_${runId}`, run_id: runId, status: 'completed' } });
const settle = () => new Promise((r) => setTimeout(r, 30));

describe('the outbox: event deliveries outlive the process that started them', () => {
  let h: Harness;
  let sub: Awaited<ReturnType<typeof subscriber>>;
  /** A second instance on the same table whose process "ends" after each attempt: it never waits to retry. */
  let dying: Runtime;
  const deliveries = async () => (await send(h, 'GET', '/subscriptions/outbox-ops/deliveries', DEV)).json.deliveries as Record<string, unknown>[];

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_OUTBOX = SECRET;
    sub = await subscriber();
    const delivery = { attempts: 3, retryBaseMs: 5, timeoutMs: 5000 };
    h = await startHarness({ outbound: { allow: ['127.0.0.1'] }, webhookCallback: delivery });
    dying = createRuntime({ store: h.stack.store, anthropic: {}, outbound: { allow: ['127.0.0.1'] }, webhookCallback: { ...delivery, waitForRetries: false } });
    const put = await send(h, 'PUT', '/subscriptions/outbox-ops', DEV, { url: sub.url, events: ['run.completed'], secret_ref: 'ZERO_WEBHOOK_SECRET_OUTBOX' });
    expect(put.status).toBe(201);
  });
  afterAll(async () => {
    await h.close();
    await sub.close();
  });
  afterEach(() => {
    sub.received.length = 0;
    sub.statuses.length = 0;
  });

  it('a delivery whose process dies after a failed first attempt is sent by a later sweep, under the same webhook-id', async () => {
    sub.statuses.push(503);
    await (await publishEvent(dying, runEnded('run_dies'))).sent;
    expect(sub.received).toHaveLength(1);
    await settle();
    // Nobody retries in the dead process: the record waits in the table, with the attempt and its error.
    expect(sub.received).toHaveLength(1);
    const [waiting] = await deliveries();
    expect(waiting).toMatchObject({ type: 'run.completed', status: 'pending', attempts: 1, last_status: 503, last_error: `${sub.origin} answered 503`, next_at: expect.any(String) });
    expect(JSON.stringify(waiting)).not.toContain('t0ken-in-the-path');

    expect(await sweepOutbox(h.server.runtime)).toEqual({ due: 1 });
    expect(sub.received).toHaveLength(2);
    expect(sub.received.every(verified)).toBe(true);
    expect(new Set(sub.received.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(sub.received[1]!.body).toBe(sub.received[0]!.body);
    expect(JSON.parse(sub.received[1]!.body)).toMatchObject({ type: 'run.completed', data: { run_id: 'run_dies' } });
    const [done] = await deliveries();
    expect(done).toMatchObject({ message_id: waiting!.message_id, status: 'delivered', attempts: 2, last_status: 200 });
    expect(done).not.toHaveProperty('next_at');

    // Delivered is done: a later sweep, or the same event published again, sends nothing.
    expect(await sweepOutbox(h.server.runtime)).toEqual({ due: 0 });
    await (await publishEvent(h.server.runtime, runEnded('run_dies'))).sent;
    expect(sub.received).toHaveLength(2);
  });

  it('two sweepers at once send a due record once', async () => {
    sub.statuses.push(503);
    await (await publishEvent(dying, runEnded('run_two_sweepers'))).sent;
    expect(sub.received).toHaveLength(1);
    await settle();
    const swept = await Promise.all([sweepOutbox(h.server.runtime), sweepOutbox(dying), sweepOutbox(h.server.runtime), sweepOutbox(dying)]);
    // Every sweeper saw the record due; one of them sent it.
    expect(swept.map((s) => s.due)).toEqual([1, 1, 1, 1]);
    expect(sub.received).toHaveLength(2);
    expect((await deliveries()).find((d) => d.status !== 'delivered')).toBeUndefined();
  });

  it('a final failure is recorded and not retried: a status not worth retrying, and attempts used up', async () => {
    sub.statuses.push(410);
    await (await publishEvent(h.server.runtime, runEnded('run_gone'))).sent;
    expect(sub.received).toHaveLength(1);
    const [gone] = await deliveries();
    expect(gone).toMatchObject({ status: 'failed', attempts: 1, last_status: 410, last_error: `${sub.origin} answered 410` });
    await settle();
    expect(await sweepOutbox(h.server.runtime)).toEqual({ due: 0 });
    expect(sub.received).toHaveLength(1);

    // Three attempts (the configured number), each by a different process, then no more.
    sub.received.length = 0;
    sub.statuses.push(500, 502, 503, 504);
    await (await publishEvent(dying, runEnded('run_exhausted'))).sent;
    for (let sweep = 0; sweep < 4; sweep++) {
      await settle();
      await sweepOutbox(dying);
    }
    expect(sub.received).toHaveLength(3);
    const [exhausted] = await deliveries();
    expect(exhausted).toMatchObject({ status: 'failed', attempts: 3, last_status: 503, last_error: `${sub.origin} answered 503` });
  });

  it('on AWS the worker sweeps when the queue brings {"outbox_sweep"}: a record written by a process frozen before its first attempt is sent', async () => {
    Object.assign(process.env, {
      ...storeEnv(h),
      ZERO_OUTBOUND_ALLOW: '127.0.0.1',
    });
    const { handler } = await import('../functions/worker');
    const event = runEnded('run_frozen');
    // What a process leaves when it is frozen right after writing the record: the record, nothing sent.
    await enqueue(dying, ['outbox-ops'], event, JSON.stringify(eventBody(event)));
    expect(sub.received).toHaveLength(0);
    const result = await handler({ Records: [{ messageId: 'sweep-1', body: JSON.stringify({ outbox_sweep: new Date().toISOString() }) }] });
    expect(result.batchItemFailures).toEqual([]);
    expect(sub.received).toHaveLength(1);
    expect(verified(sub.received[0]!)).toBe(true);
    expect((await deliveries())[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('a sweep that finds a record still leased (its sender may be frozen) asks the queue for a sweep when the lease ends', async () => {
    const later: { message: Record<string, string>; delaySeconds: number }[] = [];
    const queue = { send: async () => undefined, sendLater: async (message: Record<string, string>, delaySeconds: number) => void later.push({ message, delaySeconds }) };
    const onAws = createRuntime({ store: h.stack.store, anthropic: {}, outbound: { allow: ['127.0.0.1'] }, webhookCallback: { attempts: 3, retryBaseMs: 5, timeoutMs: 5000, waitForRetries: false }, queue });
    const event = runEnded('run_leased');
    const [record] = await enqueue(onAws, ['outbox-ops'], event, JSON.stringify(eventBody(event)));
    // A sender claims it and is frozen mid-attempt: the record is leased, and nothing else will sweep.
    expect(await onAws.subscriptions.outbox.claim(record!, Date.now(), 15_000)).toBeDefined();
    later.length = 0;
    expect(await sweepOutbox(onAws)).toEqual({ due: 0 });
    expect(sub.received).toHaveLength(0);
    expect(later).toEqual([{ message: { outbox_sweep: expect.any(String) }, delaySeconds: expect.any(Number) }]);
    expect(later[0]!.delaySeconds).toBeGreaterThanOrEqual(14);
    expect(later[0]!.delaySeconds).toBeLessThanOrEqual(17);
    // When it comes, the lease has ended: the record is sent.
    expect(await sweepOutbox(onAws, new Date(Date.now() + 16_000))).toEqual({ due: 1 });
    expect(sub.received).toHaveLength(1);
  });

  it("npm start's sweeper sends what a stopped process left, at its start and on its timer", async () => {
    const event = runEnded('run_left_behind');
    await enqueue(dying, ['outbox-ops'], event, JSON.stringify(eventBody(event)));
    const sweeper = startOutboxSweeps(h.server.runtime, 20);
    try {
      for (let waited = 0; sub.received.length < 1 && waited < 5000; waited += 20) await settle();
      expect(sub.received).toHaveLength(1);
      // A second record, left while the sweeper runs, goes out on a later tick.
      sub.statuses.push(503);
      await (await publishEvent(dying, runEnded('run_left_later'))).sent;
      for (let waited = 0; sub.received.length < 3 && waited < 5000; waited += 20) await settle();
      expect(sub.received).toHaveLength(3);
      expect(sub.received.every(verified)).toBe(true);
    } finally {
      sweeper.stop();
    }
    const recent = await deliveries();
    expect(recent.slice(0, 2).map((d) => [d.status, d.attempts])).toEqual([['delivered', 2], ['delivered', 1]]);
  });

  it("a new session's session.created delivery is recorded before the answer that created it (a Lambda frozen after it answers loses none)", async () => {
    expect((await send(h, 'PUT', '/subscriptions/outbox-created', DEV, { url: sub.url, events: ['session.created'], secret_ref: 'ZERO_WEBHOOK_SECRET_OUTBOX' })).status).toBe(201);
    const created = await send(h, 'POST', '/sessions', DEV, { agent_id: 'tester' });
    expect(created.status).toBe(201);
    const listed = (await send(h, 'GET', '/subscriptions/outbox-created/deliveries', DEV)).json.deliveries as { type: string }[];
    expect(listed).toEqual([expect.objectContaining({ type: 'session.created' })]);
    expect((await send(h, 'DELETE', '/subscriptions/outbox-created', DEV)).status).toBe(204);
  });

  it('the deliveries list is for administrators, of a subscription that exists', async () => {
    const alice = await h.userHeaders('alice');
    expect((await send(h, 'GET', '/subscriptions/outbox-ops/deliveries', alice)).status).toBe(403);
    expect((await send(h, 'GET', '/subscriptions/no-such/deliveries', DEV)).status).toBe(404);
    expect((await send(h, 'GET', '/subscriptions/outbox-ops/deliveries?limit=0', DEV)).json.error).toMatchObject({ field: 'limit' });
    expect((await send(h, 'GET', '/subscriptions/outbox-ops/deliveries?limit=2', DEV)).json.deliveries).toHaveLength(2);
  });
});
