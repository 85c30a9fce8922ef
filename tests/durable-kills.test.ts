import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import { holdEvent, sweepOutbox } from '@zero/integrations/subscriptions';
import { ScheduleTimer, fireSchedule, type FireOutcome } from '@zero/integrations/schedules';
import { startChildServer } from './support/child';
import { DEV, childConfig, getJson, postJson, send, startHarness, type Harness } from './support/harness';
import type { FakeRequest } from './support/fake-anthropic';
import { chatUntil, readSse, type ReceivedEvent } from './support/sse';
import { startSubscriber, verifiedStandardWebhook } from './support/subscriber';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OUTBOUND = { outbound: { allow: ['127.0.0.1'] }, webhookCallback: { attempts: 3, retryBaseMs: 5, timeoutMs: 2000 } };

/**
 * What a SIGKILL of the server at a chosen moment must not lose: the server
 * runs in a child process that kills itself the moment a record of a given
 * kind is durable (its failpoint), the stores survive, and a fresh process
 * finishes what the dead one left.
 */
describe('killed at a chosen moment, nothing is lost', () => {
  let h: Harness;
  let sub: Awaited<ReturnType<typeof startSubscriber>>;
  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_KILLS = SECRET;
    sub = await startSubscriber('/zero-events');
    h = await startHarness({ leaseTtlMs: 1000, ...OUTBOUND });
    const put = await send(h, 'PUT', '/subscriptions/kills', DEV, { url: sub.url, events: ['run.completed'], secret_ref: 'ZERO_WEBHOOK_SECRET_KILLS' });
    expect(put.status).toBe(201);
  });
  afterAll(async () => {
    await h.close();
    await sub.close();
  });
  afterEach(() => {
    h.fake.reset();
    sub.received.length = 0;
  });

  type Child = Awaited<ReturnType<typeof startChildServer>>;
  const child = (failpoint?: { after: string; signal: 'SIGKILL' }, extra: Record<string, unknown> = {}) => startChildServer({ ...childConfig(h, 1000), ...OUTBOUND, ...extra }, { failpoint });
  const exited = (server: Child) =>
    new Promise<void>((resolve) => {
      if (server.process.exitCode !== null || server.process.signalCode !== null) return resolve();
      server.process.once('exit', () => resolve());
    });
  /** Asks `read` again (100 ms apart, up to `tries` times) until `ok` holds for what it answers; the last answer. */
  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, tries = 100): Promise<T> {
    let value = await read();
    for (let i = 0; i < tries && !ok(value); i++) {
      await new Promise((r) => setTimeout(r, 100));
      value = await read();
    }
    return value;
  }

  it("a /v1 custom tool's result recorded, then the server killed: reading the session through /v1 alone carries the run on to idle", async () => {
    const { json: agent } = await postJson(`${h.url}/v1/agents`, {
      name: 'Weather',
      model: 'claude-sonnet-4-6',
      tools: [
        { type: 'agent_toolset_20260401', default_config: { enabled: false } },
        { type: 'custom', name: 'get_weather', description: 'The weather in a city.', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      ],
    });
    const { json: session } = await postJson(`${h.url}/v1/sessions`, { agent: agent.id, environment_id: 'env_zero_lambda' });
    h.fake.script({ toolCalls: [{ id: 'toolu_kill_weather', name: 'get_weather', input: { city: 'Oslo' } }] }, { text: 'Sunny in Oslo.' });
    const events = () => getJson(`${h.url}/v1/sessions/${session.id}/events`).then((r) => r.json.data as { type: string; stop_reason?: { type: string } }[]);
    await postJson(`${h.url}/v1/sessions/${session.id}/events`, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Oslo?' }] }] });
    const asked = await until(events, (list) => list.at(-1)?.stop_reason?.type === 'requires_action');
    expect(asked.find((e) => e.type === 'agent.custom_tool_use')).toBeTruthy();

    // The process dies the moment the result is durable: before it is reported, before the run is sent on.
    const first = await child({ after: 'approval', signal: 'SIGKILL' });
    await postJson(`${first.url}/v1/sessions/${session.id}/events`, { events: [{ type: 'user.custom_tool_result', custom_tool_use_id: 'toolu_kill_weather', content: [{ type: 'text', text: 'sunny' }] }] }).catch(() => undefined);
    await exited(first);

    const second = await child();
    try {
      // Only /v1 reads: retrieving the session wakes the run, as /api/v2's read does.
      const retrieved = await until(() => getJson(`${second.url}/v1/sessions/${session.id}`).then((r) => r.json), (s) => s.status === 'idle');
      expect(retrieved.status).toBe('idle');
      const list = await until(() => getJson(`${second.url}/v1/sessions/${session.id}/events`).then((r) => r.json.data as { type: string; stop_reason?: { type: string } }[]), (l) => l.at(-1)?.stop_reason?.type === 'end_turn');
      expect(list.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'end_turn' } });
      expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('sunny');
      // Its run.completed is delivered before this process stops, so no delivery of it is left held for a later sweep.
      expect(await until(async () => sub.received.length, (n) => n >= 1)).toBe(1);
    } finally {
      await second.kill();
    }
  }, 60_000);

  /** The session's event log from its start, until `stop` says so or 20 s have passed (then what came). */
  async function eventLog(url: string, sessionId: string, stop: (e: ReceivedEvent) => boolean) {
    const events: ReceivedEvent[] = [];
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 20_000);
    try {
      const response = await fetch(`${url}/api/v2/sessions/${sessionId}/events?after=0`, { headers: DEV, signal: controller.signal });
      for await (const event of readSse(response, controller.signal)) {
        events.push(event);
        if (stop(event)) break;
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    return events;
  }

  it('killed the moment run_end is stored: the subscriber still gets run.completed, sent by a sweep', async () => {
    h.fake.script({ text: 'Done before the kill.' });
    const first = await child({ after: 'run_end', signal: 'SIGKILL' });
    const { sessionId } = await chatUntil(first.url, { agent_id: 'tester', message: 'finish, then die' }, (e) => e.type === 'start');
    await exited(first);
    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    expect(json.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    const runId = json.history.at(-1).run_id as string;

    // The record was written before the run_end; a sweep once its writer's lease is over sends it.
    expect(await sweepOutbox(h.server.runtime, new Date(Date.now() + 60_000))).toEqual({ due: 1 });
    expect(sub.received).toHaveLength(1);
    expect(verifiedStandardWebhook(sub.received[0]!, SECRET)).toBe(true);
    expect(JSON.parse(sub.received[0]!.body)).toMatchObject({ type: 'run.completed', data: { session_id: sessionId, run_id: runId, status: 'completed' } });
    const { json: listed } = await send(h, 'GET', '/subscriptions/kills/deliveries', DEV);
    const messageId = sub.received[0]!.headers['webhook-id'];
    expect(listed.deliveries.filter((d: { message_id: string }) => d.message_id === messageId)).toEqual([expect.objectContaining({ type: 'run.completed', status: 'delivered', attempts: 1 })]);
  }, 60_000);

  it('a report held for an ending that was never stored (killed in between) is dropped by the sweep, not sent', async () => {
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const sessionId = json.session.session_id as string;
    await holdEvent(h.server.runtime, { type: 'run.completed', key: 'run_never_ended', data: { session_id: sessionId, run_id: 'run_never_ended', status: 'completed' } }, { session_id: sessionId, run_id: 'run_never_ended' });
    expect(await sweepOutbox(h.server.runtime, new Date(Date.now() + 60_000))).toEqual({ due: 1 });
    expect(sub.received).toEqual([]);
    const { json: listed } = await send(h, 'GET', '/subscriptions/kills/deliveries', DEV);
    expect(JSON.stringify(listed.deliveries)).not.toContain('run_never_ended');
  });

  it('killed the moment run_end is stored: a follower of the event log still gets the run\'s done', async () => {
    h.fake.script({ text: 'Ended, never reported.' });
    const first = await child({ after: 'run_end', signal: 'SIGKILL' });
    const { sessionId } = await chatUntil(first.url, { agent_id: 'tester', message: 'finish, then die' }, (e) => e.type === 'start');
    await exited(first);
    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    const end = json.history.at(-1);
    expect(end).toMatchObject({ kind: 'run_end', status: 'completed' });

    const second = await child();
    try {
      const events = await eventLog(second.url, sessionId, (e) => e.type === 'done');
      expect(events.filter((e) => e.type === 'done')).toEqual([expect.objectContaining({ run_id: end.run_id, status: 'completed' })]);
    } finally {
      await second.kill();
    }
  }, 60_000);

  it('killed the moment a compaction is stored: the event log gets its compacted event, once', async () => {
    const isSummaryCall = (request: FakeRequest) => JSON.stringify(request.body.system ?? '').includes('You compact a conversation');
    h.fake.respondWith((request) => ({ text: isSummaryCall(request) ? '- Summary: the user described the shop.' : 'Noted.' }));
    const filler = (n: number) => `Turn ${n}. ${'Some context about the shop that takes room. '.repeat(130)}`;
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const sessionId = json.session.session_id as string;
    for (let n = 1; n <= 3; n++) await chatUntil(h.url, { session_id: sessionId, message: filler(n) }, (e) => e.type === 'done');

    const limits = { limits: { ...DEFAULT_LIMITS, contextWindowTokens: 4_000, compactAtPercent: 50, compactKeepTurns: 2, compactMinFreedPercent: 20 } };
    const first = await child({ after: 'compaction', signal: 'SIGKILL' }, limits);
    await chatUntil(first.url, { session_id: sessionId, message: 'One more thing.' }, (e) => e.type === 'start');
    await exited(first);
    const { json: killed } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    const compaction = killed.history.find((r: { kind: string }) => r.kind === 'compaction');
    expect(compaction).toBeDefined();

    const second = await child(undefined, limits);
    try {
      const events = await eventLog(second.url, sessionId, (e) => e.type === 'done' && e.run_id === compaction.run_id);
      expect(events.filter((e) => e.type === 'compacted')).toEqual([
        expect.objectContaining({ run_id: compaction.run_id, tokens_before: compaction.tokens_before, tokens_after: compaction.tokens_after, turns_folded: compaction.turns_folded }),
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    } finally {
      await second.kill();
    }
  }, 60_000);

  describe('a scheduled start killed after its fire marker (cron "* * * * *", SIGKILL 150 ms after the minute)', () => {
    const schedule = { cron: '* * * * *', timezone: 'UTC', agent_id: 'tester', prompt: 'Count the open incidents.', owner: { user_id: 'alice', name: 'Alice' }, members: [] };
    /** Runs one tick of the schedule timer a minute from now (past the marker's grace), and resolves with what it fired or finished. */
    async function tickLater() {
      const fired: { id: string; at: string; outcome: FireOutcome }[] = [];
      let armed: (() => void) | undefined;
      const clock = { now: () => Date.now() + 60_000, setTimeout: (fn: () => void) => ((armed = fn), () => undefined) };
      const timer = new ScheduleTimer(h.server.runtime, { clock, pollMs: 3_600_000, onFire: (id, at, outcome) => fired.push({ id, at: at.toISOString(), outcome }) }).start();
      armed!();
      await timer.idle();
      timer.stop();
      return fired;
    }
    async function untilRunEnds(sessionId: string) {
      const alice = await h.userHeaders('alice', 'Alice');
      return until(() => getJson(`${h.url}/api/v2/sessions/${sessionId}`, alice).then((r) => r.json), (s) => s.history?.at(-1)?.kind === 'run_end');
    }

    it('a marker stored before the session was made (as stored by earlier versions) is finished by the next sweep, once', async () => {
      expect((await send(h, 'PUT', '/schedules/minutely-old', DEV, schedule)).status).toBe(201);
      const at = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
      // What the killed process left: the marker, in the format of the versions before this one, and no session.
      expect(await h.server.runtime.schedules.markers.claim('minutely-old', at, { session_id: 'killed-9c1e', run_id: 'run_killed_9c1e' })).toBe(true);
      h.fake.script({ text: 'Three incidents are open.' });

      const fired = (await tickLater()).filter((f) => f.id === 'minutely-old' && f.at === at);
      expect(fired).toEqual([{ id: 'minutely-old', at, outcome: { status: 'started', session_id: 'killed-9c1e', run_id: 'run_killed_9c1e' } }]);
      const session = await untilRunEnds('killed-9c1e');
      expect(session.role).toBe('owner');
      expect(session.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'run_end']);
      expect(session.history[0]).toMatchObject({ run_id: 'run_killed_9c1e', text: schedule.prompt });
      // Finished is finished: the next sweep, or a late trigger for the same time, starts nothing more.
      expect((await tickLater()).filter((f) => f.id === 'minutely-old')).toEqual([]);
      expect(await fireSchedule(h.server.runtime, 'minutely-old', new Date(at), Date.now() + 60_000)).toEqual({ status: 'duplicate' });
      expect(h.fake.requests).toHaveLength(1);
      await send(h, 'PUT', '/schedules/minutely-old', DEV, { ...schedule, paused: true });
    }, 60_000);

    it('the session id comes from (schedule, time): a late trigger for a time whose start died finishes that same session, and a second one starts nothing', async () => {
      expect((await send(h, 'PUT', '/schedules/minutely', DEV, schedule)).status).toBe(201);
      const at = new Date('2026-11-27T10:00:00.000Z');
      const { firedIds } = await import('@zero/integrations/schedules');
      const ids = firedIds('minutely', at.toISOString());
      expect(ids).toEqual(firedIds('minutely', at.toISOString()));
      expect(await h.server.runtime.schedules.markers.claim('minutely', at.toISOString(), ids)).toBe(true);
      h.fake.script({ text: 'None open.' });
      // Within the grace a trigger takes the marker for a start still under way.
      expect(await fireSchedule(h.server.runtime, 'minutely', at)).toEqual({ status: 'duplicate' });
      const late = await fireSchedule(h.server.runtime, 'minutely', at, Date.now() + 60_000);
      expect(late).toEqual({ status: 'started', ...ids });
      expect((await untilRunEnds(ids.session_id)).history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
      expect(await fireSchedule(h.server.runtime, 'minutely', at, Date.now() + 120_000)).toEqual({ status: 'duplicate' });
      expect(h.fake.requests).toHaveLength(1);
      await send(h, 'PUT', '/schedules/minutely', DEV, { ...schedule, paused: true });
    }, 60_000);
  });
});
