import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '@zero/runtime/store/clients';
import { until } from './support/until';
import { startSubscriber, verifiedStandardWebhook, type Delivery } from './support/subscriber';
import { DEV, postJson, send, startHarness, type Harness } from './support/harness';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** The tester's tools, with the ledger asking a person first. */
const ASKER = `---
name: asker
description: Records in the ledger, after a person approves.
tools: echo, ledger
model: claude-test-model
permissions:
  ledger: ask
---

You record things.
`;

const subscriber = () => startSubscriber('/zero-events');
const verified = (delivery: Delivery) => verifiedStandardWebhook(delivery, SECRET);

describe('signed outbound events', () => {
  let h: Harness;
  let sub: Awaited<ReturnType<typeof subscriber>>;
  const events = () => sub.received.map((d) => ({ ...d, json: JSON.parse(d.body) as { type: string; data: Record<string, unknown> } }));

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_EVENTS = SECRET;
    sub = await subscriber();
    h = await startHarness({ outbound: { allow: ['127.0.0.1'] }, webhookCallback: { attempts: 3, retryBaseMs: 5, timeoutMs: 5000 } });
  });
  afterAll(async () => {
    await h.close();
    await sub.close();
  });
  afterEach(async () => {
    await send(h, 'DELETE', '/subscriptions/ops', DEV);
    sub.received.length = 0;
    sub.statuses.length = 0;
    h.fake.reset();
  });

  it('POSTs session.created and run.completed, signed in the Standard Webhooks format, with ids and no content', async () => {
    const put = await send(h, 'PUT', '/subscriptions/ops', DEV, { url: sub.url, events: ['session.created', 'run.completed', 'run.failed'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' });
    expect(put.status).toBe(201);
    expect(put.json.subscription).toMatchObject({ id: 'ops', url: sub.url, events: ['session.created', 'run.completed', 'run.failed'] });
    expect((await send(h, 'GET', '/subscriptions/ops', DEV)).json.subscription.secret_ref).toBe('ZERO_WEBHOOK_SECRET_EVENTS');

    h.fake.script({ text: 'The password is swordfish.' });
    const chat = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'What is the secret word? swordfish' });
    expect(chat.status).toBe(200);
    const got = await until(() => (events().length >= 2 ? events() : undefined));
    expect(got.map((e) => e.json.type).sort()).toEqual(['run.completed', 'session.created']);
    for (const delivery of got) {
      expect(verified(delivery)).toBe(true);
      expect(delivery.json.data.session_id).toBe(chat.json.session_id);
      // Ids and outcomes only: what was said stays in Zero.
      expect(delivery.body).not.toContain('swordfish');
    }
    expect(got.find((e) => e.json.type === 'run.completed')!.json.data).toMatchObject({ run_id: chat.json.run_id, agent_id: 'tester', status: 'completed' });
  });

  it('retries a failed delivery with the same message id, and a run that fails is run.failed', async () => {
    await send(h, 'PUT', '/subscriptions/ops', DEV, { url: sub.url, events: ['run.failed'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' });
    sub.statuses.push(503, 500);
    h.fake.script({ status: 400 });
    await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'fail, please' });
    const got = await until(() => (sub.received.length >= 3 ? events() : undefined));
    expect(got).toHaveLength(3);
    expect(new Set(got.map((e) => e.headers['webhook-id'])).size).toBe(1);
    expect(got.every(verified)).toBe(true);
    expect(got[0]!.json).toMatchObject({ type: 'run.failed', data: { status: 'error' } });
  });

  it('tells a subscriber a run waits for approval, naming the call by id', async () => {
    process.env.ZERO_TEST_LEDGER = join(await mkdtemp(join(tmpdir(), 'zero-events-')), 'ledger.txt');
    const s3 = createS3Client(h.stack.store);
    await s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: 'agents/asker.md', Body: ASKER, ContentType: 'text/markdown' }));
    s3.destroy();
    await send(h, 'PUT', '/subscriptions/ops', DEV, { url: sub.url, events: ['run.awaiting_approval'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' });
    h.fake.script({ toolCalls: [{ id: 'toolu_ledger', name: 'ledger', input: { entry: 'top secret entry' } }], stopReason: 'tool_use' });
    const chat = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'asker', message: 'record it' });
    const [event] = await until(() => (events().length >= 1 ? events() : undefined));
    expect(verified(event!)).toBe(true);
    expect(event!.json).toMatchObject({ type: 'run.awaiting_approval', data: { session_id: chat.json.session_id, status: 'awaiting_approval', pending: ['toolu_ledger'] } });
    expect(event!.body).not.toContain('top secret');
  });

  it('is for administrators, and refuses a URL the outbound guard would refuse, a secret that is not set, an unknown event', async () => {
    const alice = await h.userHeaders('alice');
    const body = { url: sub.url, events: ['run.completed'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' };
    expect((await send(h, 'PUT', '/subscriptions/ops', alice, body)).status).toBe(403);
    expect((await send(h, 'GET', '/subscriptions/ops', alice)).status).toBe(403);
    expect((await send(h, 'PUT', '/subscriptions/ops', DEV, { ...body, url: 'http://10.0.0.7/hook' })).json.error).toMatchObject({ field: 'url' });
    expect((await send(h, 'PUT', '/subscriptions/ops', DEV, { ...body, secret_ref: 'ZERO_WEBHOOK_SECRET_UNSET' })).json.error).toMatchObject({ field: 'secret_ref' });
    expect((await send(h, 'PUT', '/subscriptions/ops', DEV, { ...body, events: ['chat.said'] })).status).toBe(400);
    expect((await send(h, 'GET', '/subscriptions/ops', DEV)).status).toBe(404);
  });

  it('an administrator lists every subscription; a member may not', async () => {
    const body = { url: sub.url, events: ['run.completed'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' };
    expect((await send(h, 'PUT', '/subscriptions/list-b', DEV, body)).status).toBe(201);
    expect((await send(h, 'PUT', '/subscriptions/list-a', DEV, { ...body, events: ['session.created'] })).status).toBe(201);
    const listed = await send(h, 'GET', '/subscriptions', DEV);
    expect(listed.status).toBe(200);
    expect(listed.json.subscriptions.filter((s: { id: string }) => s.id.startsWith('list-'))).toEqual([
      { id: 'list-a', url: sub.url, events: ['session.created'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS', format: 'zero', created_at: expect.any(String), updated_at: expect.any(String) },
      { id: 'list-b', url: sub.url, events: ['run.completed'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS', format: 'zero', created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    expect((await send(h, 'GET', '/subscriptions', await h.userHeaders('alice'))).status).toBe(403);
    for (const id of ['list-a', 'list-b']) expect((await send(h, 'DELETE', `/subscriptions/${id}`, DEV)).status).toBe(204);
  });

  it('sends nothing once the subscription is deleted', async () => {
    await send(h, 'PUT', '/subscriptions/ops', DEV, { url: sub.url, events: ['session.created'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' });
    expect((await send(h, 'DELETE', '/subscriptions/ops', DEV)).status).toBe(204);
    h.fake.script({ text: 'Hello.' });
    await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hi' });
    // A marker subscription, put after the chat: its event arriving means the chat's would have arrived by now.
    await send(h, 'PUT', '/subscriptions/ops', DEV, { url: sub.url, events: ['session.created'], secret_ref: 'ZERO_WEBHOOK_SECRET_EVENTS' });
    h.fake.script({ text: 'Hello again.' });
    const marker = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hi' });
    await until(() => (sub.received.length >= 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 200));
    expect(events().map((e) => e.json.data.session_id)).toEqual([marker.json.session_id]);
  });
});
