import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../local/server';
import { DEV, send, startHarness, type Harness, startSecondInstance } from './support/harness';


/** A short window, so that a test sees the next one admit again without waiting a minute. */
const WINDOW_MS = 3_000;
const rateLimits = { perCredential: 4, perSession: 2, perHook: 2, windowMs: WINDOW_MS };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for a window to begin, so that a test's requests fall in one window. */
const nextWindow = () => sleep(WINDOW_MS - (Date.now() % WINDOW_MS) + 20);

describe('rate limits, across two instances on the same stores', () => {
  let h: Harness;
  let other: RunningServer;
  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_RATE = 'a-webhook-secret';
    h = await startHarness({ rateLimits });
    other = await startSecondInstance(h, { permissions: { side_effects: 'allow' }, rateLimits });
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });

  it("holds a credential's requests per window in sum over both instances, answers 429 with retry-after, and admits again in the next window", async () => {
    const alice = await h.userHeaders('alice');
    await nextWindow();
    const statuses = [];
    for (const server of [h, other, h, other]) statuses.push((await send(server, 'GET', '/sessions', alice)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);

    const limited = await fetch(`${other.url}/api/v2/sessions`, { headers: alice });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect((await limited.json()).error).toMatchObject({ code: 'rate_limited', limit: 'credential', retry_after_s: retryAfter });
    // Another credential is not limited by alice's.
    expect((await send(h, 'GET', '/sessions', await h.userHeaders('carol'))).status).toBe(200);

    await nextWindow();
    expect((await send(h, 'GET', '/sessions', alice)).status).toBe(200);
  });

  it("holds the messages sent to one session per window, whichever instance takes them; nothing of a refused message runs", async () => {
    const bob = await h.userHeaders('bob');
    await nextWindow();
    const session = (await send(h, 'POST', '/sessions', bob, { agent_id: 'tester' })).json.session.session_id as string;
    h.fake.script({ text: 'one' }, { text: 'two' });
    expect((await send(h, 'POST', '/chat', bob, { session_id: session, message: 'first' })).status).toBe(200);
    expect((await send(other, 'POST', '/chat', bob, { session_id: session, message: 'second' })).status).toBe(200);
    const calls = h.fake.requests.length;

    const refused = await send(h, 'POST', '/chat', bob, { session_id: session, message: 'third' });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'rate_limited', limit: 'session' });
    expect(h.fake.requests.length).toBe(calls);
    const history = (await send(h, 'GET', `/sessions/${session}`, bob)).text;
    expect(history).not.toContain('third');

    await nextWindow();
    h.fake.script({ text: 'three' });
    expect((await send(other, 'POST', '/chat', bob, { session_id: session, message: 'third again' })).status).toBe(200);
  });

  it('holds the deliveries to one webhook per window, before their signature is checked', async () => {
    const hook = { source: 'github', secret_ref: 'ZERO_WEBHOOK_SECRET_RATE', events: ['push'], agent_id: 'tester', prompt: 'x', owner: { user_id: 'alice' } };
    expect((await send(h, 'PUT', '/hooks/limited', DEV, hook)).status).toBe(201);
    await nextWindow();
    const deliver = (server: { url: string }) => fetch(`${server.url}/api/v2/webhooks/limited`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push' }, body: '{}' });
    expect((await deliver(h)).status).toBe(401);
    expect((await deliver(other)).status).toBe(401);
    const limited = await deliver(h);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await limited.json()).error).toMatchObject({ code: 'rate_limited', limit: 'hook' });
  });
});
