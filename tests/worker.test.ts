import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV, getJson, startHarness, type Harness } from './support/harness';

/** An SQS batch as Lambda delivers it to the worker. */
function sqsEvent(bodies: { id: string; body: string }[]) {
  return {
    Records: bodies.map(({ id, body }) => ({
      messageId: id,
      receiptHandle: `AQEB${id}==`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'AROAEXAMPLE:zero-api',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '0'.repeat(32),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:zero-test-RunJobsQueue',
      awsRegion: 'us-east-1',
    })),
  };
}

describe('the worker function', () => {
  let h: Harness;
  let handler: (event: unknown, context?: { getRemainingTimeInMillis(): number }) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
  beforeAll(async () => {
    h = await startHarness();
    // The worker reads its deployment from the environment when SST has linked nothing.
    Object.assign(process.env, {
      ZERO_TABLE: h.stack.store.table,
      ZERO_BUCKET: h.stack.store.bucket,
      ZERO_DYNAMODB_ENDPOINT: h.stack.store.dynamoEndpoint,
      ZERO_S3_ENDPOINT: h.stack.store.s3Endpoint,
      AWS_ACCESS_KEY_ID: h.stack.store.credentials!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: h.stack.store.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1',
      ANTHROPIC_BASE_URL: h.fake.url,
      ANTHROPIC_API_KEY: 'sk-ant-worker-key-0123456789',
    });
    handler = (await import('../functions/worker')).handler as typeof handler;
  });
  afterAll(() => h.close());

  it('carries a waiting session on, reports a poison message as the only failure, and does nothing for a finished session', async () => {
    const rt = h.server.runtime;
    const created = await rt.sessions.createSession(
      { session_id: 'worker-session', title: 'from a webhook', agent_id: 'tester', created_at: 'now', updated_at: 'now' },
      { user_id: 'dev', name: 'Developer' },
    );
    await rt.sessions.enqueue(created.session_id, { run_id: 'run_worker', text: 'investigate', at: 'now' });
    h.fake.script({ text: 'Investigated.' });

    const context = { getRemainingTimeInMillis: () => 900_000 };
    const result = await handler(
      sqsEvent([
        { id: 'good', body: JSON.stringify({ session_id: 'worker-session', reason: 'webhook' }) },
        { id: 'poison', body: '{"session_id": ' },
        { id: 'wrong-shape', body: JSON.stringify({ session: 42 }) },
      ]),
      context,
    );
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['poison', 'wrong-shape']);
    const { json } = await getJson(`${h.url}/api/v2/sessions/worker-session`, DEV);
    expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'run_end']);
    expect(json.history[1].content).toEqual([{ type: 'text', text: 'Investigated.' }]);

    // At-least-once delivery: the same job again changes nothing and asks the model nothing.
    const again = await handler(sqsEvent([{ id: 'good-again', body: JSON.stringify({ session_id: 'worker-session' }) }]), context);
    expect(again.batchItemFailures).toEqual([]);
    expect(h.fake.requests).toHaveLength(1);
    expect((await getJson(`${h.url}/api/v2/sessions/worker-session`, DEV)).json.history).toHaveLength(3);
  });
  it("fires the schedules due at EventBridge's minute tick, once however often the tick is delivered", async () => {
    const put = await fetch(`${h.url}/api/v2/schedules/worker-tick`, {
      method: 'PUT',
      headers: { ...DEV, 'content-type': 'application/json' },
      body: JSON.stringify({ cron: '30 18 * * *', timezone: 'Asia/Tokyo', agent_id: 'tester', prompt: 'Close the day.', owner: { user_id: 'erin' } }),
    });
    expect(put.status).toBe(201);
    h.fake.script({ text: 'Closed.' }, { text: 'A second run must never be asked for.' });
    const erin = await h.userHeaders('erin');
    // 18:30 in Tokyo is 09:30 UTC; the rule's tick for 09:31 looks back over it.
    const tick = { id: 'tick', body: '{"schedules_tick":"2026-05-04T09:31:00Z"}' };
    const context = { getRemainingTimeInMillis: () => 900_000 };
    expect((await handler(sqsEvent([tick]), context)).batchItemFailures).toEqual([]);
    const started = await h.server.runtime.schedules.markers.get('worker-tick', '2026-05-04T09:30:00.000Z');
    expect(started).toEqual({ session_id: expect.any(String), run_id: expect.stringMatching(/^run_/) });
    // Delivered again (SQS is at-least-once), and the next minute's tick looking back over 09:30: nothing new.
    expect((await handler(sqsEvent([{ ...tick, id: 'tick-again' }, { id: 'next-tick', body: '{"schedules_tick":"2026-05-04T09:32:00Z"}' }]), context)).batchItemFailures).toEqual([]);
    expect(await h.server.runtime.schedules.markers.get('worker-tick', '2026-05-04T09:30:00.000Z')).toEqual(started);
    const session = await getJson(`${h.url}/api/v2/sessions/${started!.session_id}`, erin);
    expect(session.json.role).toBe('owner');
    expect(session.json.history.filter((r: { kind: string }) => r.kind === 'user_message')).toEqual([
      expect.objectContaining({ text: 'Close the day.', run_id: started!.run_id, author: { id: 'schedule:worker-tick', name: 'Schedule (worker-tick)' } }),
    ]);
  });
});
