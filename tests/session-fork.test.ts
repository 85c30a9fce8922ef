import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, startHarness, type Harness } from './support/harness';
import { readSse, type ReceivedEvent } from './support/sse';
import { countingStoreRequests } from './support/store-requests';

const api = (h: Harness, path: string) => `${h.url}/api/v2${path}`;

interface HistoryRecord {
  seq: number;
  kind: string;
  run_id: string;
  text?: string;
  content?: { type: string; text?: string; name?: string }[];
}

const textOf = (records: HistoryRecord[]) => JSON.stringify(records);

describe('forking a session', () => {
  let h: Harness;
  let alice: Record<string, string>;
  let mallory: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.userHeaders('alice', 'Alice');
    mallory = await h.userHeaders('mallory', 'Mallory');
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('forks at a record in the middle of a tool step, without copying the log; both sessions go on independently', async () => {
    const created = await postJson(api(h, '/sessions'), { title: 'original', agent_id: 'tester' }, alice);
    expect(created.status).toBe(201);
    const parent = created.json.session.session_id as string;
    // A long history before the fork point: what a fork would cost if it copied the log.
    for (let n = 0; n < 5; n++) {
      h.fake.script({ text: `answer ${n} `.repeat(200) });
      expect((await postJson(api(h, '/chat'), { session_id: parent, message: `warm-up ${n}` }, alice)).status).toBe(200);
    }
    h.fake.script({ text: 'On it. ', toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, { text: 'Echoed.' });
    expect((await postJson(api(h, '/chat'), { session_id: parent, message: 'first question' }, alice)).json).toMatchObject({ status: 'completed' });

    const before = (await getJson(api(h, `/sessions/${parent}`), alice)).json.history as HistoryRecord[];
    // The assistant's tool call, before its result: the middle of a tool step.
    const toolCall = before.find((r) => r.kind === 'assistant' && r.content?.some((b) => b.type === 'tool_use'))!;
    expect(before.some((r) => r.kind === 'tool_result' && r.seq > toolCall.seq)).toBe(true);

    // Someone who cannot read the session cannot fork it.
    expect((await postJson(api(h, `/sessions/${parent}/fork`), { at_event: toolCall.seq }, mallory)).status).toBe(404);
    // A point past the history, or not a number, is refused naming the field.
    const past = await postJson(api(h, `/sessions/${parent}/fork`), { at_event: 10_000 }, alice);
    expect(past.status).toBe(400);
    expect(JSON.stringify(past.json)).toContain('at_event');
    expect((await postJson(api(h, `/sessions/${parent}/fork`), { at_event: 'middle' }, alice)).status).toBe(400);

    let forked!: { status: number; json: any };
    const requests = await countingStoreRequests(h, async () => {
      forked = await postJson(api(h, `/sessions/${parent}/fork`), { at_event: toolCall.seq }, alice);
    });
    expect(forked.status).toBe(201);
    const fork = forked.json.session.session_id as string;
    expect(forked.json.session.forked_from).toMatchObject({ session_id: parent, log_seq: toolCall.seq });
    const writes = requests.filter((r) => /Put|Update|Write|Delete/.test(r.command));
    const historyBytes = Buffer.byteLength(JSON.stringify(before));
    // The cost the docs state: four puts, whose bytes do not grow with the history.
    expect(writes.map((w) => w.command)).toEqual(['PutItemCommand', 'PutItemCommand', 'PutItemCommand', 'PutItemCommand']);
    const writtenBytes = writes.reduce((sum, w) => sum + w.bytes, 0);
    expect(writtenBytes).toBeLessThan(2000);
    expect(writtenBytes).toBeLessThan(historyBytes / 4);
    console.log(`fork cost: ${requests.length} DynamoDB requests (${writes.length} writes, ${writtenBytes} bytes written; ${requests.map((r) => r.command).join(', ')}); the history forked: ${before.length} records, ${historyBytes} bytes`);

    // The fork's history is the parent's up to the point, read from the parent; the fork lists its parent, the parent its fork.
    const forkView = await getJson(api(h, `/sessions/${fork}`), alice);
    expect(forkView.status).toBe(200);
    expect(forkView.json.role).toBe('owner');
    expect(forkView.json.members.map((m: { user_id: string }) => m.user_id)).toEqual(['alice']);
    expect(forkView.json.history).toEqual(before.filter((r) => r.seq <= toolCall.seq));
    expect((await getJson(api(h, `/sessions/${parent}/forks`), alice)).json.forks).toEqual([expect.objectContaining({ session_id: fork, log_seq: toolCall.seq, forked_by: 'alice' })]);

    // Both go on: each model call sees its own session's history and nothing of the other's. The fork first
    // finishes the tool step it was cut in (the call runs in the fork, and the model answers its result), then takes the message.
    h.fake.script({ text: 'fork resumed' }, { text: 'fork answer' });
    const inFork = await postJson(api(h, '/chat'), { session_id: fork, message: 'question in the fork' }, alice);
    expect(inFork.json, JSON.stringify(inFork.json)).toMatchObject({ status: 'completed' });
    const forkCall = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(forkCall).toContain('first question');
    expect(forkCall).toContain('warm-up 0');
    expect(forkCall).toContain('question in the fork');
    h.fake.script({ text: 'parent answer' });
    expect((await postJson(api(h, '/chat'), { session_id: parent, message: 'question in the parent' }, alice)).json).toMatchObject({ status: 'completed', text: 'parent answer' });
    const parentCall = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(parentCall).toContain('Echoed.');
    expect(parentCall).not.toContain('question in the fork');

    const parentHistory = (await getJson(api(h, `/sessions/${parent}`), alice)).json.history as HistoryRecord[];
    const forkHistory = (await getJson(api(h, `/sessions/${fork}`), alice)).json.history as HistoryRecord[];
    expect(textOf(parentHistory)).toContain('question in the parent');
    expect(textOf(parentHistory)).not.toContain('question in the fork');
    expect(textOf(forkHistory)).toContain('question in the fork');
    expect(textOf(forkHistory)).toContain('fork resumed');
    expect(forkHistory.find((r) => r.kind === 'tool_result' && r.seq > toolCall.seq)).toBeDefined();
    expect(textOf(forkHistory)).not.toContain('question in the parent');
    expect(forkHistory.slice(0, before.filter((r) => r.seq <= toolCall.seq).length)).toEqual(before.filter((r) => r.seq <= toolCall.seq));
    // The fork's own records go on from the fork point's numbering.
    expect(forkHistory.at(-1)!.seq).toBeGreaterThan(toolCall.seq);

    // The events stream replays the parent's events up to the last run finished at the fork point, then the fork's own.
    const controller = new AbortController();
    const stream = await fetch(api(h, `/sessions/${fork}/events?after=0`), { headers: alice, signal: controller.signal });
    expect(stream.status).toBe(200);
    const replayed: ReceivedEvent[] = [];
    for await (const event of readSse(stream)) {
      replayed.push(event);
      // Five warm-up runs, the cut run finished in the fork, the fork's message.
      if (replayed.filter((e) => e.type === 'done').length === 7) break;
    }
    controller.abort();
    const said = replayed.flatMap((e) => (e.type === 'message' ? [e.text] : []));
    const answered = replayed.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
    expect(said).toEqual(['warm-up 0', 'warm-up 1', 'warm-up 2', 'warm-up 3', 'warm-up 4', 'question in the fork']);
    expect(answered).toContain('fork resumed');
    expect(answered).toContain('fork answer');
    expect(answered).not.toContain('Echoed.');
    expect(answered).not.toContain('parent answer');

    // A session with forks is not deleted from under them; once its fork is gone, it is.
    expect((await h.server.runtime.sessions.listForks(parent)).length).toBe(1);
    const refused = await fetch(api(h, `/sessions/${parent}`), { method: 'DELETE', headers: alice });
    expect(refused.status).toBe(409);
    expect((await fetch(api(h, `/sessions/${fork}`), { method: 'DELETE', headers: alice })).status).toBe(204);
    expect((await fetch(api(h, `/sessions/${parent}`), { method: 'DELETE', headers: alice })).status).toBe(204);
  });
});
