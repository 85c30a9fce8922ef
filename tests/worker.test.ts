import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { fireScheduleJob } from '@zero/integrations/schedules';
import { FakeScheduler } from './support/fake-scheduler';
import { DEV, storeEnv, getJson, send, startHarness, type Harness } from './support/harness';

/** The deployment's EventBridge Scheduler group, the role it sends with, and the run queue it sends to (sst.config.ts). */
const GROUP = 'zero-test-SchedulesGroup';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/zero-test-SchedulerRole';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:zero-test-RunJobsQueue';

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
  let scheduler: FakeScheduler;
  let handler: (event: unknown, context?: { getRemainingTimeInMillis(): number }) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
  beforeAll(async () => {
    scheduler = await new FakeScheduler().start();
    const credentials = { accessKeyId: 'AKIAFAKESCHEDULER001', secretAccessKey: 'fake-scheduler-secret' };
    h = await startHarness({ scheduler: { group: GROUP, roleArn: ROLE_ARN, queueArn: QUEUE_ARN, endpoint: scheduler.url, region: 'us-east-1', credentials } });
    // The worker reads its deployment from the environment when SST has linked nothing.
    Object.assign(process.env, {
      ...storeEnv(h),
      ANTHROPIC_BASE_URL: h.fake.url,
      ANTHROPIC_API_KEY: 'sk-ant-worker-key-0123456789',
      ZERO_SCHEDULE_GROUP: GROUP,
      ZERO_SCHEDULER_ROLE_ARN: ROLE_ARN,
      ZERO_RUN_QUEUE_ARN: QUEUE_ARN,
      ZERO_SCHEDULER_ENDPOINT: scheduler.url,
      ZERO_SESSION_TITLES: 'off',
    });
    handler = (await import('../functions/worker')).handler as typeof handler;
  });
  afterAll(async () => {
    await h.close();
    await scheduler.close();
  });
  const putSchedule = (id: string, body: Record<string, unknown>) =>
    send(h, 'PUT', `/schedules/${id}`, { ...DEV, 'content-type': 'application/json' }, { agent_id: 'tester', owner: { user_id: 'erin' }, ...body });

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
  it('registers a schedule with EventBridge Scheduler, and fires it from the run queue once however often the firing is delivered', async () => {
    const put = await putSchedule('worker-tick', { cron: '30 18 * * *', timezone: 'Asia/Tokyo', prompt: 'Close the day.' });
    expect(put.status).toBe(201);
    expect(scheduler.inGroup(GROUP).get('worker-tick')).toMatchObject({
      ScheduleExpression: 'cron(30 18 * * ? *)',
      ScheduleExpressionTimezone: 'Asia/Tokyo',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN },
    });
    h.fake.script({ text: 'Closed.' }, { text: 'A second run must never be asked for.' });
    const erin = await h.userHeaders('erin');
    // 18:30 in Tokyo is 09:30 UTC: EventBridge fires then, putting the schedule's job on the run queue.
    const at = scheduler.nextTimes(GROUP, 'worker-tick', new Date('2026-05-04T00:00:00Z'))[0]!;
    expect(at.toISOString()).toBe('2026-05-04T09:30:00.000Z');
    const fire = { id: 'fire', body: scheduler.fire(GROUP, 'worker-tick', at) };
    const context = { getRemainingTimeInMillis: () => 900_000 };
    expect((await handler(sqsEvent([fire]), context)).batchItemFailures).toEqual([]);
    const started = await h.server.runtime.schedules.markers.get('worker-tick', '2026-05-04T09:30:00.000Z');
    // The ids come from (schedule, time), and the marker records that the start finished.
    expect(started).toEqual({ session_id: expect.stringMatching(/^sched_/), run_id: expect.stringMatching(/^run_/), at: expect.any(String), outcome: 'started' });
    // Delivered again (EventBridge and SQS are both at-least-once): nothing new.
    expect((await handler(sqsEvent([{ ...fire, id: 'fire-again' }, { ...fire, id: 'fire-third' }]), context)).batchItemFailures).toEqual([]);
    expect(await h.server.runtime.schedules.markers.get('worker-tick', '2026-05-04T09:30:00.000Z')).toEqual(started);
    const session = await getJson(`${h.url}/api/v2/sessions/${started!.session_id}`, erin);
    expect(session.json.role).toBe('owner');
    expect(session.json.history.filter((r: { kind: string }) => r.kind === 'user_message')).toEqual([
      expect.objectContaining({ text: 'Close the day.', run_id: started!.run_id, author: { id: 'schedule:worker-tick', name: 'Schedule (worker-tick)' } }),
    ]);
    expect(await handler(sqsEvent([{ id: 'garbled', body: '{"schedule_fire":{"id":"worker-tick","at":"soon"}}' }]), context)).toEqual({ batchItemFailures: [{ itemIdentifier: 'garbled' }] });
  });

  it('keeps EventBridge in step: a pause disables, both day fields make two schedules, a delete removes them, a firing of a schedule gone behind its back takes it down', async () => {
    const body = { cron: '0 12 13 * 5', timezone: 'Europe/Lisbon', prompt: 'Friday the 13th check.' };
    expect((await putSchedule('lucky', body)).status).toBe(201);
    // Day 13 OR a Friday, as cron means it: EventBridge cannot say OR, so one schedule per day field.
    expect([...scheduler.inGroup(GROUP).values()].filter((s) => s.Name.startsWith('lucky')).map((s) => [s.Name, s.ScheduleExpression])).toEqual([
      ['lucky', 'cron(0 12 13 * ? *)'],
      ['lucky.w', 'cron(0 12 ? * FRI *)'],
    ]);
    expect((await putSchedule('lucky', { ...body, paused: true })).status).toBe(200);
    expect(['lucky', 'lucky.w'].map((name) => scheduler.inGroup(GROUP).get(name)?.State)).toEqual(['DISABLED', 'DISABLED']);
    // Back to one day field: the second half goes.
    expect((await putSchedule('lucky', { ...body, cron: '0 12 13 * *' })).status).toBe(200);
    expect(scheduler.inGroup(GROUP).get('lucky')).toMatchObject({ State: 'ENABLED', ScheduleExpression: 'cron(0 12 13 * ? *)' });
    expect(scheduler.inGroup(GROUP).has('lucky.w')).toBe(false);
    expect((await send(h, 'DELETE', '/schedules/lucky', DEV)).status).toBe(204);
    expect(scheduler.inGroup(GROUP).has('lucky')).toBe(false);

    // Deleted from the bucket while EventBridge kept it (its removal failed): its next firing starts nothing and removes it.
    expect((await putSchedule('orphan', body)).status).toBe(201);
    await h.server.runtime.schedules.store.delete('orphan');
    const requests = h.fake.requests.length;
    const context = { getRemainingTimeInMillis: () => 900_000 };
    const orphanFire = scheduler.fire(GROUP, 'orphan', new Date('2026-11-13T12:00:00Z'));
    expect((await handler(sqsEvent([{ id: 'orphan', body: orphanFire }]), context)).batchItemFailures).toEqual([]);
    expect(scheduler.inGroup(GROUP).has('orphan')).toBe(false);
    expect(scheduler.inGroup(GROUP).has('orphan.w')).toBe(false);
    expect(h.fake.requests.length).toBe(requests);
  });

  it('a schedule that pauses itself after three failed runs is disabled in EventBridge too', async () => {
    expect((await putSchedule('flaky', { cron: '0 8 * * *', timezone: 'UTC', prompt: 'Check the deploys.' })).status).toBe(201);
    h.fake.reset();
    h.fake.respondWith(() => ({ status: 400 }));
    try {
      for (const day of ['01', '02', '03']) {
        expect((await fireScheduleJob(h.server.runtime, 'flaky', new Date(`2026-07-${day}T08:00:00Z`))).status).toBe('started');
        await (h.server.runtime.queue as InProcessQueue).idle();
      }
    } finally {
      h.fake.reset();
    }
    expect((await getJson(`${h.url}/api/v2/schedules/flaky`)).json.schedule).toMatchObject({ paused: true, failures: 3 });
    expect(scheduler.inGroup(GROUP).get('flaky')?.State).toBe('DISABLED');
  });

  it('a change EventBridge refuses is a 502 naming EventBridge and its answer; the same PUT again registers the schedule', async () => {
    scheduler.failNext = { type: 'AccessDeniedException', status: 403, message: 'User is not authorized to perform: scheduler:CreateSchedule' };
    const body = { cron: '0 7 * * 1-5', timezone: 'America/New_York', prompt: 'Morning triage.' };
    const refused = await putSchedule('triage', body);
    expect(refused.status).toBe(502);
    expect(refused.json.error).toMatchObject({ code: 'upstream_error', field: 'schedule_id' });
    expect(refused.json.error.message).toMatch(/EventBridge Scheduler failed \(AccessDeniedException: User is not authorized/);
    expect(JSON.stringify(refused.json)).not.toContain('fake-scheduler-secret');
    expect(scheduler.inGroup(GROUP).has('triage')).toBe(false);
    expect((await putSchedule('triage', body)).status).toBe(200);
    expect(scheduler.inGroup(GROUP).get('triage')).toMatchObject({ ScheduleExpression: 'cron(0 7 ? * MON-FRI *)', ScheduleExpressionTimezone: 'America/New_York' });
  });

  it('POST /schedules/sync registers the schedules stored before EventBridge fired them (an upgrade), and names one EventBridge refuses', async () => {
    const now = new Date().toISOString();
    const old = { v: 1, id: 'from-before', cron: '45 6 * * *', timezone: 'Europe/Berlin', agent_id: 'tester', prompt: 'Morning.', owner: { user_id: 'erin' }, members: [], paused: false, failures: 0, created_at: now, updated_at: now };
    await h.server.runtime.artifacts.putJson('schedules/from-before.json', old);
    expect(scheduler.inGroup(GROUP).has('from-before')).toBe(false);
    expect((await send(h, 'POST', '/schedules/sync', await h.userHeaders('erin'))).status).toBe(403);
    const synced = await send(h, 'POST', '/schedules/sync', DEV);
    expect(synced.status).toBe(200);
    expect(synced.json).toMatchObject({ trigger: 'eventbridge', failed: [] });
    expect(synced.json.synced).toContain('from-before');
    expect(scheduler.inGroup(GROUP).get('from-before')).toMatchObject({ ScheduleExpression: 'cron(45 6 * * ? *)', ScheduleExpressionTimezone: 'Europe/Berlin', State: 'ENABLED' });

    scheduler.failNext = { type: 'AccessDeniedException', status: 403, message: 'not authorized to perform scheduler:UpdateSchedule' };
    const partly = await send(h, 'POST', '/schedules/sync', DEV);
    expect(partly.status).toBe(200);
    expect(partly.json.failed).toEqual([{ schedule_id: expect.any(String), message: expect.stringMatching(/EventBridge Scheduler failed \(AccessDeniedException: not authorized/) }]);
  });
});
