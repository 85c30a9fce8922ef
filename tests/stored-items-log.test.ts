import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLOAD_BYTES } from '@zero/runtime/store/session-store';
import { logItem } from '@zero/runtime/store/items/log-record';
import { StoredItemError } from '@zero/runtime/store/stored-item';
import { DEV, send, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

const fixtures = join(import.meta.dirname, '../packages/runtime/src/store/fixtures/log-item');
const read = (file: string) => JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as Record<string, unknown>[];
const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };

/**
 * A log item holds one record (version 1) or several written in one round trip (version 2): a step of
 * read-only calls writes its `assistant` record with its first result, and a run's answer rides with its
 * `run_end`. Every reader of the log reads both shapes; requests are seen where they leave the runtime's
 * DynamoDB client.
 */
describe('log items of several records', () => {
  let h: Harness;
  /** The sort keys of the log items put since the last reset. */
  const logPuts: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    h.server.runtime.sessions.db.middlewareStack.add(
      (next, context) => async (args) => {
        const sk = (args.input as { Item?: { sk?: unknown } }).Item?.sk;
        if (/^Put(Item)?Command$/.test(context.commandName ?? '') && typeof sk === 'string' && sk.startsWith('LOG#')) logPuts.push(sk);
        return next(args);
      },
      { step: 'initialize', name: 'countLogPutsForTheTest' },
    );
  });
  afterAll(() => h.close());

  const sessionOf = (events: ReceivedEvent[]) => (events.find((e) => e.type === 'start') as Extract<ReceivedEvent, { type: 'start' }>).session_id;

  it('a read-only step is one log write, and the answer is written with run_end: a one-tool turn makes 3 log writes, and reads back as 5 records', async () => {
    h.fake.script({ toolCalls: [{ name: 'get_agent_info', input: { agent_id: 'tester' } }] }, { text: 'Looked.' });
    logPuts.length = 0;
    const run = await chatStream(h.url, { agent_id: 'tester', message: 'look it up' });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    expect(run.events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
    expect(logPuts).toEqual(['LOG#000000000001', 'LOG#000000000002', 'LOG#000000000004']);

    const sessionId = sessionOf(run.events);
    const { json } = await send(h, 'GET', `/sessions/${sessionId}`, DEV);
    const history = json.history as { kind: string; seq: number; v: number }[];
    expect(history.map((r) => [r.seq, r.kind, r.v])).toEqual([
      [1, 'user_message', 1],
      [2, 'assistant', 1],
      [3, 'tool_result', 1],
      [4, 'assistant', 1],
      [5, 'run_end', 1],
    ]);
    const sessions = h.server.runtime.sessions;
    expect(await sessions.lastLogSeq(sessionId)).toBe(5);
    expect((await sessions.readLogTail(sessionId, 2)).map((r) => r.seq)).toEqual([4, 5]);
    expect((await sessions.readLogTail(sessionId, 3)).map((r) => r.seq)).toEqual([3, 4, 5]);
    expect((await sessions.readLog(sessionId, 2)).map((r) => r.seq)).toEqual([3, 4, 5]);
    expect((await sessions.readRunEnds(sessionId)).map((r) => r.seq)).toEqual([5]);

    // The next turn of the session (its positions come from the next lease's block) reads on from there: two writes.
    h.fake.script({ text: 'Again.' });
    logPuts.length = 0;
    const again = await chatStream(h.url, { session_id: sessionId, message: 'and again' });
    expect(again.events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 1 });
    expect(logPuts).toHaveLength(2);
    const log = await sessions.readLog(sessionId);
    expect(log.map((r) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end', 'user_message', 'assistant', 'run_end']);
    expect(log.at(-1)!.seq).toBe(log.at(-2)!.seq + 1);
    expect(await sessions.readLog(sessionId, log.at(-2)!.seq)).toEqual([log.at(-1)]);
  });

  it('a step with side effects writes its tool call alone, before the call runs', async () => {
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, { text: 'Echoed.' });
    logPuts.length = 0;
    const run = await chatStream(h.url, { agent_id: 'tester', message: 'echo it' });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    expect(logPuts).toEqual(['LOG#000000000001', 'LOG#000000000002', 'LOG#000000000003', 'LOG#000000000004']);
    const { json } = await send(h, 'GET', `/sessions/${sessionOf(run.events)}`, DEV);
    expect((json.history as { kind: string }[]).map((r) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
  });

  it('items as a deploy of either version left them read as one log, through the store and the API', async () => {
    const sessions = h.server.runtime.sessions;
    const sessionId = '7a1d3c5e-2b4f-4e6a-8c0d-9e8f7a6b5c4d';
    await sessions.createSession({ session_id: sessionId, title: 'both shapes', agent_id: 'tester', created_at: '2026-11-27T10:00:00.000Z', updated_at: '2026-11-27T10:00:00.000Z' }, { user_id: 'dev' });
    const [first] = read('v1.json');
    await sessions.db.send(new PutCommand({ TableName: sessions.table, Item: { ...first, pk: `SESSION#${sessionId}`, run_id: 'run_b' } }));
    for (const item of read('v2.json')) await sessions.db.send(new PutCommand({ TableName: sessions.table, Item: item }));

    expect((await sessions.readLog(sessionId)).map((r) => [r.seq, r.kind])).toEqual([
      [1, 'user_message'],
      [2, 'assistant'],
      [3, 'tool_result'],
      [4, 'assistant'],
      [5, 'run_end'],
    ]);
    expect((await sessions.readLog(sessionId, 2)).map((r) => r.seq)).toEqual([3, 4, 5]);
    expect((await sessions.readLog(sessionId, 3)).map((r) => r.seq)).toEqual([4, 5]);
    expect((await sessions.readLogTail(sessionId, 1)).map((r) => r.seq)).toEqual([5]);
    expect((await sessions.readRunEnds(sessionId)).map((r) => [r.seq, r.kind])).toEqual([[5, 'run_end']]);
    expect(await sessions.lastLogSeq(sessionId)).toBe(5);
    const { json } = await send(h, 'GET', `/sessions/${sessionId}`, DEV);
    expect((json.history as { seq: number }[]).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('an item of several records over the item size limit is kept in S3 whole, and still found by its kinds', async () => {
    const sessions = h.server.runtime.sessions;
    const text = 'x'.repeat(OFFLOAD_BYTES);
    await sessions.append('big-pair', 1, [
      { kind: 'assistant', run_id: 'r', step: 1, agent_id: 'zero', usage, content: [{ type: 'text', text }] },
      { kind: 'run_end', run_id: 'r', status: 'completed', steps: 1, usage },
    ]);
    const records = await sessions.readLog('big-pair');
    expect(records.map((r) => [r.seq, r.kind])).toEqual([
      [1, 'assistant'],
      [2, 'run_end'],
    ]);
    expect(JSON.stringify(records[0])).toContain(text);
    expect((await sessions.readRunEnds('big-pair')).map((r) => r.seq)).toEqual([2]);
    expect(await sessions.lastLogSeq('big-pair')).toBe(2);
  });

  it('an item whose records do not sit at consecutive positions from its own is refused, naming it', () => {
    const [item] = read('v2.json');
    const records = item!.records as { seq: number }[];
    const gap = { ...item, records: [records[0], { ...records[1], seq: 9 }] };
    expect(() => logItem.decode(gap)).toThrow(StoredItemError);
    expect(() => logItem.decode(gap)).toThrow(/stored log item SESSION#\S+ LOG#000000000002 is unreadable: .*consecutive/);
  });
});
