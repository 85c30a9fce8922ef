import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

/**
 * A session's `/v1` record (`sessions/<id>/managed.json`: its environment, attached memory stores) is
 * read from S3 once per run, and not at all by the first run of a session its message created: that
 * read stood between the message and its `start` (tens of milliseconds to S3's first byte on AWS).
 */
describe("a run's reads of its session's /v1 record", () => {
  let h: Harness;
  const reads: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    h.server.runtime.artifacts.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const key = String((args.input as { Key?: unknown }).Key ?? '');
        if (context.commandName === 'GetObjectCommand' && key.endsWith('/managed.json')) reads.push(key);
        return next(args);
      },
      { step: 'initialize', name: 'countRecordReadsForTheTest' },
    );
  });
  afterAll(() => h.close());

  it('none for the first run of a new session, one for each later run', async () => {
    h.fake.script({ text: 'First.' }, { text: 'Second.' });
    const first = await chatStream(h.url, { agent_id: 'tester', message: 'hello' });
    expect(first.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const sessionId = (first.events.find((e) => e.type === 'start') as Extract<ReceivedEvent, { type: 'start' }>).session_id;
    expect(reads).toEqual([]);

    const second = await chatStream(h.url, { session_id: sessionId, message: 'again' });
    expect(second.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(reads).toEqual([`sessions/${sessionId}/managed.json`]);
  });
});
