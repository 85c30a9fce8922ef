import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoClient } from '@zero/runtime/store/clients';
import { sessionWatcherKey } from '@zero/runtime/store/items/session-watcher';
import type { RunningServer } from '../local/server';
import { postJson, send, startHarness, type Harness, startSecondInstance } from './support/harness';


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds or a few seconds passed; returns the last value. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 50 && !check(value); attempt++) {
    await sleep(100);
    value = await read();
  }
  return value;
}

describe('who watches a session, what each member has not read yet, and title search', () => {
  let h: Harness;
  let other: RunningServer;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let eve: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness();
    // A second instance on the same stores: a stream open there counts here too.
    other = await startSecondInstance(h);
    [alice, bob, eve] = await Promise.all([h.userHeaders('alice', 'Alice'), h.userHeaders('bob', 'Bob'), h.userHeaders('eve', 'Eve')]);
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });

  async function sharedSession(title: string) {
    const id = (await postJson(`${h.url}/api/v2/sessions`, { title, agent_id: 'tester' }, alice)).json.session.session_id as string;
    expect((await send(h, 'PUT', `/sessions/${id}/members/bob`, alice, { role: 'editor' })).status).toBe(201);
    return id;
  }

  function watch(url: string, id: string, headers: Record<string, string>) {
    const controller = new AbortController();
    const response = fetch(`${url}/api/v2/sessions/${id}/events`, { headers, signal: controller.signal });
    return { response, close: () => controller.abort() };
  }

  const watchers = async (id: string) => ((await send(h, 'GET', `/sessions/${id}/watchers`, alice)).json.watchers as { user_id: string; name?: string }[]).map((w) => w.user_id);

  it('lists the members with a live view open, across instances; one who closes theirs drops out; non-members get 404', async () => {
    const id = await sharedSession('watched together');
    expect(await watchers(id)).toEqual([]);
    const a = watch(h.url, id, alice);
    expect((await a.response).status).toBe(200);
    const b = watch(other.url, id, bob);
    expect((await b.response).status).toBe(200);
    const both = await eventually(() => watchers(id), (w) => w.length === 2);
    expect([...both].sort()).toEqual(['alice', 'bob']);
    const listed = (await send(h, 'GET', `/sessions/${id}/watchers`, bob)).json.watchers;
    expect(listed).toContainEqual(expect.objectContaining({ user_id: 'alice', name: 'Alice' }));

    b.close();
    expect(await eventually(() => watchers(id), (w) => w.length === 1)).toEqual(['alice']);
    expect((await send(h, 'GET', `/sessions/${id}/watchers`, eve)).status).toBe(404);
    a.close();
    expect(await eventually(() => watchers(id), (w) => w.length === 0)).toEqual([]);
  });

  it('a view whose process died stops counting once its last sign of life runs out', async () => {
    const id = await sharedSession('left open on a dead instance');
    // What a stream's process wrote before it died: the item is never pushed forward again.
    const db = createDynamoClient(h.stack.store);
    const died = (userId: string, untilMs: number) =>
      db.send(new PutCommand({ TableName: h.stack.store.table, Item: { ...sessionWatcherKey(id, userId, 'deadbeef00000000'), v: 1, user_id: userId, since: new Date().toISOString(), until: Date.now() + untilMs, expires_at: Math.ceil(Date.now() / 1000) + 3600 } }));
    await died('bob', -1000);
    await died('alice', 1500);
    expect(await watchers(id)).toEqual(['alice']);
    expect(await eventually(() => watchers(id), (w) => w.length === 0)).toEqual([]);
    db.destroy();
  });

  it('marks a session unread for a member until they open it; the author who watched it live has read it', async () => {
    const id = await sharedSession('unread check');
    const unread = async (headers: Record<string, string>) =>
      ((await send(h, 'GET', '/sessions?limit=100', headers)).json.sessions as { session_id: string; unread: boolean }[]).find((s) => s.session_id === id)?.unread;
    // Nothing has happened yet.
    expect(await unread(bob)).toBe(false);

    const live = watch(h.url, id, alice);
    expect((await live.response).status).toBe(200);
    h.fake.script({ text: 'The build is green.' });
    expect((await postJson(`${h.url}/api/v2/chat`, { session_id: id, message: 'How is the build?' }, alice)).status).toBe(200);
    expect(await unread(bob)).toBe(true);
    // Alice followed it live; her seen position is written when her stream ends.
    live.close();
    expect(await eventually(() => unread(alice), (u) => u === false)).toBe(false);
    expect(await unread(bob)).toBe(true);

    expect((await send(h, 'GET', `/sessions/${id}`, bob)).status).toBe(200);
    expect(await unread(bob)).toBe(false);
  });

  it('searches titles past the first page, bounded, and refuses an overlong query', async () => {
    const carol = await h.userHeaders('carol', 'Carol');
    const make = (title: string) => postJson(`${h.url}/api/v2/sessions`, { title, agent_id: 'tester' }, carol);
    await make('Quarterly Invoice review');
    for (let n = 0; n < 105; n += 15) await Promise.all(Array.from({ length: 15 }, (_, i) => make(`chat ${n + i}`)));
    await make('invoice follow-up');

    const firstPage = (await send(h, 'GET', '/sessions?limit=100', carol)).json.sessions as { title: string }[];
    expect(firstPage.map((s) => s.title)).not.toContain('Quarterly Invoice review');
    const found = await send(h, 'GET', '/sessions?q=INVOICE&limit=100', carol);
    expect(found.status).toBe(200);
    expect(found.json.sessions.map((s: { title: string }) => s.title)).toEqual(['invoice follow-up', 'Quarterly Invoice review']);
    expect(found.json.next_cursor).toBeUndefined();

    // A page of one match goes on from its cursor to the next.
    const one = await send(h, 'GET', '/sessions?q=invoice&limit=1', carol);
    expect(one.json.sessions.map((s: { title: string }) => s.title)).toEqual(['invoice follow-up']);
    const rest = await send(h, 'GET', `/sessions?q=invoice&limit=1&cursor=${one.json.next_cursor}`, carol);
    expect(rest.json.sessions.map((s: { title: string }) => s.title)).toEqual(['Quarterly Invoice review']);
    // Another member's search sees only their own sessions.
    expect((await send(h, 'GET', '/sessions?q=invoice', bob)).json.sessions).toEqual([]);
    const long = await send(h, 'GET', `/sessions?q=${'x'.repeat(201)}`, carol);
    expect(long.status).toBe(400);
    expect(long.text).toContain('q');
  });
});
