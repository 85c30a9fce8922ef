import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, type Harness } from './support/harness';
import { startHarnessWithUsers, type UserHeaders } from './support/members';
import { NodeChat, newChatId } from './support/node-chat';
import { readSse, type ReceivedEvent } from './support/sse';
import { countingStoreRequests, writesOf } from './support/store-requests';

const api = (h: Harness, path: string) => `${h.url}/api/v2${path}`;

interface HistoryRecord {
  seq: number;
  kind: string;
  text?: string;
  branch_from?: number;
}

describe('editing a message and regenerating an answer: the session branches in place', () => {
  let h: Harness;
  let alice: UserHeaders, bob: UserHeaders, carol: UserHeaders;
  beforeAll(async () => ({ h, alice, bob, carol } = await startHarnessWithUsers(['alice', 'bob', 'carol'])));
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('an edit writes what a new message writes: the history before it is not copied', async () => {
    const id = (await postJson(api(h, '/sessions'), { title: 'long', agent_id: 'tester' }, alice)).json.session.session_id as string;
    h.fake.script({ text: 'First.' });
    expect((await postJson(api(h, '/chat'), { session_id: id, message: 'the question to edit' }, alice)).status).toBe(200);
    // A long history after the edited message: what an edit would cost if it copied the log.
    for (let n = 0; n < 5; n++) {
      h.fake.script({ text: `answer ${n} `.repeat(1500) });
      expect((await postJson(api(h, '/chat'), { session_id: id, message: `more ${n}` }, alice)).status).toBe(200);
    }
    const history = (await getJson(api(h, `/sessions/${id}`), alice)).json.history as HistoryRecord[];
    const historyBytes = Buffer.byteLength(JSON.stringify(history));
    const asked = history.find((r) => r.kind === 'user_message')!;

    h.fake.script({ text: 'Same answer.' });
    const plain = writesOf(await countingStoreRequests(h, () => postJson(api(h, '/chat'), { session_id: id, message: 'a new question' }, alice)));
    h.fake.script({ text: 'Same answer.' });
    let edited!: { status: number };
    const edit = await countingStoreRequests(h, async () => {
      edited = await postJson(api(h, `/sessions/${id}/messages/${asked.seq}/edit`), { text: 'a new question' }, alice);
    });
    expect(edited.status).toBe(200);
    const editWrites = writesOf(edit);
    console.log(`edit cost: ${edit.length} DynamoDB requests (${editWrites.writes.length} writes, ${editWrites.bytes} bytes written); the same message sent anew: ${plain.writes.length} writes, ${plain.bytes} bytes; the history: ${history.length} records, ${historyBytes} bytes`);
    // The branch is a field of the new message's record, not a copy: the edit's writes are the new message's, give or take the field.
    expect(editWrites.writes.length).toBeLessThanOrEqual(plain.writes.length + 1);
    expect(editWrites.bytes).toBeLessThan(plain.bytes + 1000);
    expect(editWrites.bytes).toBeLessThan(historyBytes / 4);
  });

  it('in a shared session the author edits, another editor is refused, and everyone sees the branch', async () => {
    const id = (await postJson(api(h, '/sessions'), { title: 'shared', agent_id: 'tester' }, alice)).json.session.session_id as string;
    for (const [user, role] of [['bob', 'editor'], ['carol', 'editor']] as const) {
      expect((await fetch(api(h, `/sessions/${id}/members/${user}`), { method: 'PUT', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ role }) })).status).toBe(201);
    }
    h.fake.script({ text: 'Four.' });
    expect((await postJson(api(h, '/chat'), { session_id: id, message: 'what is 2+2?' }, bob)).json).toMatchObject({ status: 'completed', text: 'Four.' });
    const first = (await getJson(api(h, `/sessions/${id}`), bob)).json.history as HistoryRecord[];
    const asked = first.find((r) => r.kind === 'user_message')!;

    // Carol, an editor who did not write it, may not edit Bob's message; nothing is written.
    const refused = await postJson(api(h, `/sessions/${id}/messages/${asked.seq}/edit`), { text: 'carol was here' }, carol);
    expect(refused.status).toBe(403);
    expect((await getJson(api(h, `/sessions/${id}`), bob)).json.history).toEqual(first);
    // A record that is not a message, and a body without text, are refused naming what is wrong.
    expect((await postJson(api(h, `/sessions/${id}/messages/${first.at(-1)!.seq}/edit`), { text: 'x' }, bob)).status).toBe(404);
    expect((await postJson(api(h, `/sessions/${id}/messages/${asked.seq}/edit`), {}, bob)).status).toBe(400);

    // Carol follows the session: she sees the branch being made.
    const controller = new AbortController();
    const stream = await fetch(api(h, `/sessions/${id}/events?after=0`), { headers: carol, signal: controller.signal });
    const seen: ReceivedEvent[] = [];
    const following = (async () => {
      for await (const event of readSse(stream)) {
        seen.push(event);
        if (seen.filter((e) => e.type === 'done').length === 2) break;
      }
      controller.abort();
    })();

    h.fake.script({ text: 'Five.' });
    const edited = await postJson(api(h, `/sessions/${id}/messages/${asked.seq}/edit`), { text: 'what is 2+3?' }, bob);
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ status: 'completed', text: 'Five.' });
    // The model saw the edited message, not the first one nor its answer.
    const call = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(call).toContain('what is 2+3?');
    expect(call).not.toContain('what is 2+2?');
    expect(call).not.toContain('Four.');
    await following;
    expect(seen.find((e) => e.type === 'message' && e.text === 'what is 2+3?')).toMatchObject({ branch_from: asked.seq - 1 });

    // The active branch is the new one; the first stays readable and is listed.
    const view = (await getJson(api(h, `/sessions/${id}`), carol)).json;
    const texts = JSON.stringify(view.history);
    expect(texts).toContain('what is 2+3?');
    expect(texts).not.toContain('what is 2+2?');
    expect(view.branches).toEqual([expect.objectContaining({ branch_from: asked.seq - 1, author: { id: 'bob', name: 'Bob' }, set_aside: first.filter((r) => r.seq >= asked.seq).map((r) => r.seq) })]);
    const all = JSON.stringify((await getJson(api(h, `/sessions/${id}?branches=all`), carol)).json.history);
    expect(all).toContain('what is 2+2?');
    expect(all).toContain('Four.');
    expect(all).toContain('what is 2+3?');

    // An owner may edit anyone's message.
    const current = (view.history as HistoryRecord[]).find((r) => r.kind === 'user_message')!;
    h.fake.script({ text: 'Six.' });
    expect((await postJson(api(h, `/sessions/${id}/messages/${current.seq}/edit`), { text: 'what is 3+3?' }, alice)).json).toMatchObject({ status: 'completed', text: 'Six.' });
    expect((await getJson(api(h, `/sessions/${id}`), alice)).json.branches).toHaveLength(2);
  });

  it("regenerates the last answer through the ai package's chat client (useChat's regenerate)", async () => {
    const id = newChatId();
    const chat = new NodeChat(h.url, id, alice, { agent_id: 'tester' });
    h.fake.script({ text: 'First try.' });
    await chat.sendMessage({ text: 'tell me a joke' });
    expect(chat.error).toBeUndefined();
    h.fake.script({ text: 'Second try.' });
    await chat.regenerate();
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(chat.messages[1]!.parts)).toContain('Second try.');
    // The model was asked the same question again, without the first answer.
    const call = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(call).toContain('tell me a joke');
    expect(call).not.toContain('First try.');
    const view = (await getJson(api(h, `/sessions/${id}`), alice)).json;
    expect(JSON.stringify(view.history)).not.toContain('First try.');
    expect(view.branches).toHaveLength(1);
    expect(JSON.stringify((await getJson(api(h, `/sessions/${id}?branches=all`), alice)).json.history)).toContain('First try.');
  });
});
