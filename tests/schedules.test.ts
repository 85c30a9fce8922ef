import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { ScheduleTimer, fireSchedule, type Clock, type FireOutcome } from '@zero/integrations/schedules';
import { DEV, getJson, send, startHarness, type Harness } from './support/harness';

/** A clock moved by hand: timers run when `advanceTo` passes their time, never by waiting. */
class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; live: boolean }[] = [];
  constructor(private time: number) {}
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const timer = { at: this.time + ms, fn, live: true };
    this.timers.push(timer);
    return () => void (timer.live = false);
  };
  /** Moves to `iso`, running each due timer in turn (and waiting for what it started) on the way. */
  async advanceTo(iso: string, settle: () => Promise<void>) {
    const end = Date.parse(iso);
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      this.time = Math.max(this.time, due.at);
      due.fn();
      await settle();
    }
    this.time = end;
  }
}

describe('schedules', () => {
  let h: Harness;
  const idle = () => (h.server.runtime.queue as InProcessQueue).idle();
  const schedule = {
    cron: '0 9 * * *',
    timezone: 'Europe/Lisbon',
    agent_id: 'tester',
    prompt: 'Summarise yesterday’s failed deployments.',
    owner: { user_id: 'alice', name: 'Alice' },
    members: [{ user_id: 'bob' }],
  };
  const put = (id: string, body: unknown, headers: Record<string, string> = DEV) => send(h, 'PUT', `/schedules/${id}`, { 'content-type': 'application/json', ...headers }, body);
  const sessionsOf = async (userId: string) => (await getJson(`${h.url}/api/v2/sessions`, await h.userHeaders(userId))).json.sessions as { session_id: string }[];

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());
  beforeEach(() => h.fake.reset());

  it('an administrator creates, reads, replaces and deletes a schedule; reads show the next five times', async () => {
    const created = await put('daily', schedule);
    expect(created.status).toBe(201);
    expect(created.json.schedule).toMatchObject({ id: 'daily', cron: '0 9 * * *', timezone: 'Europe/Lisbon', paused: false, failures: 0 });
    const read = await getJson(`${h.url}/api/v2/schedules/daily`);
    expect(read.status).toBe(200);
    const next: string[] = read.json.schedule.next_runs;
    expect(next).toHaveLength(5);
    // 9:00 in Lisbon: 08:00 or 09:00 UTC by the season, one a day, in order.
    for (const at of next) expect(at).toMatch(/T0[89]:00:00\.000Z$/);
    expect(new Set(next.map((at) => at.slice(0, 10))).size).toBe(5);
    expect(next).toEqual([...next].sort());

    expect((await put('daily', { ...schedule, paused: true })).status).toBe(200);
    expect((await getJson(`${h.url}/api/v2/schedules/daily`)).json.schedule).toMatchObject({ paused: true, next_runs: [] });
    expect((await send(h, 'DELETE', '/schedules/daily', DEV)).status).toBe(204);
    expect((await getJson(`${h.url}/api/v2/schedules/daily`)).status).toBe(404);
    expect((await send(h, 'DELETE', '/schedules/daily', DEV)).status).toBe(404);
  });

  it('an administrator lists every schedule with its state and next times; a member may not', async () => {
    expect((await put('list-b', schedule)).status).toBe(201);
    expect((await put('list-a', { ...schedule, paused: true })).status).toBe(201);
    const listed = await getJson(`${h.url}/api/v2/schedules`);
    expect(listed.status).toBe(200);
    const ours = listed.json.schedules.filter((s: { id: string }) => s.id.startsWith('list-'));
    expect(ours).toMatchObject([
      { id: 'list-a', paused: true, failures: 0, next_runs: [] },
      { id: 'list-b', paused: false, failures: 0, next_runs: expect.arrayContaining([expect.any(String)]) },
    ]);
    expect(ours[0]).not.toHaveProperty('v');
    expect((await getJson(`${h.url}/api/v2/schedules`, await h.userHeaders('carol'))).status).toBe(403);
    for (const id of ['list-a', 'list-b']) expect((await send(h, 'DELETE', `/schedules/${id}`, DEV)).status).toBe(204);
  });

  it('a bad cron, a missing or unknown time zone, an unknown agent are 400s naming the field; a member is refused', async () => {
    const field = async (body: unknown) => {
      const response = await put('bad', body);
      expect(response.status).toBe(400);
      return response.json.error.field;
    };
    expect(await field({ ...schedule, cron: '0 9 * *' })).toBe('cron');
    expect(await field({ ...schedule, cron: '61 9 * * *' })).toBe('cron');
    expect(await field({ ...schedule, cron: '0 9 * * 1-5 2026' })).toBe('cron');
    const { timezone: _, ...withoutZone } = schedule;
    expect(await field(withoutZone)).toBe('timezone');
    expect(await field({ ...schedule, timezone: 'Mars/Olympus_Mons' })).toBe('timezone');
    expect((await put('bad', { ...schedule, agent_id: 'nobody-here' })).status).toBe(404);
    expect((await getJson(`${h.url}/api/v2/schedules/bad`)).status).toBe(404);

    const carol = await h.userHeaders('carol');
    expect((await put('mine', schedule, carol)).status).toBe(403);
    expect((await getJson(`${h.url}/api/v2/schedules/mine`, carol)).status).toBe(403);
    expect((await getJson(`${h.url}/api/v2/schedules/mine`)).status).toBe(404);
  });

  it('fires once at 9:00 Lisbon time on the day the clocks go forward (08:00 UTC, not 09:00), as the owner with the prompt', async () => {
    expect((await put('dst', schedule)).status).toBe(201);
    h.fake.script({ text: 'Two deployments failed.' });
    const clock = new ManualClock(Date.parse('2026-03-28T12:00:00Z'));
    const fired: { id: string; at: string; outcome: FireOutcome }[] = [];
    const timer = new ScheduleTimer(h.server.runtime, { clock, pollMs: 3_600_000, onFire: (id, at, outcome) => fired.push({ id, at: at.toISOString(), outcome }) }).start();
    const settle = async () => {
      await timer.idle();
      await idle();
    };
    try {
      await clock.advanceTo('2026-03-29T07:59:59Z', settle);
      expect(fired).toEqual([]);
      await clock.advanceTo('2026-03-29T09:30:00Z', settle);
      expect(fired).toEqual([{ id: 'dst', at: '2026-03-29T08:00:00.000Z', outcome: expect.objectContaining({ status: 'started' }) }]);
    } finally {
      timer.stop();
      await put('dst', { ...schedule, paused: true });
    }
    const started = fired[0]!.outcome as Extract<FireOutcome, { status: 'started' }>;
    const session = await getJson(`${h.url}/api/v2/sessions/${started.session_id}`, await h.userHeaders('alice'));
    expect(session.json.role).toBe('owner');
    expect(session.json.history.find((r: { kind: string }) => r.kind === 'user_message')).toMatchObject({ text: schedule.prompt, run_id: started.run_id });
    expect(session.json.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect((await getJson(`${h.url}/api/v2/sessions/${started.session_id}`, await h.userHeaders('bob'))).status).toBe(200);
    expect(h.fake.requests).toHaveLength(1);
  });

  it('two triggers for the same scheduled time start one run', async () => {
    expect((await put('twice', schedule)).status).toBe(201);
    h.fake.script({ text: 'Once.' }, { text: 'A second run must never be asked for.' });
    const before = (await sessionsOf('alice')).length;
    const at = new Date('2026-06-01T08:00:00Z');
    const outcomes = await Promise.all([fireSchedule(h.server.runtime, 'twice', at), fireSchedule(h.server.runtime, 'twice', at)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['duplicate', 'started']);
    expect((await fireSchedule(h.server.runtime, 'twice', at)).status).toBe('duplicate');
    await idle();
    expect(h.fake.requests).toHaveLength(1);
    expect((await sessionsOf('alice')).length).toBe(before + 1);
  });

  it('three failed runs in a row pause the schedule with the reason; a paused schedule starts nothing', async () => {
    expect((await put('flaky', schedule)).status).toBe(201);
    h.fake.respondWith(() => ({ status: 400 }));
    for (const day of ['01', '02', '03']) {
      expect((await fireSchedule(h.server.runtime, 'flaky', new Date(`2026-07-${day}T08:00:00Z`))).status).toBe('started');
      await idle();
    }
    const paused = (await getJson(`${h.url}/api/v2/schedules/flaky`)).json.schedule;
    expect(paused).toMatchObject({ paused: true, failures: 3, next_runs: [] });
    expect(paused.paused_reason).toMatch(/^3 failed runs in a row; the last: run run_\S+ ended with "error"/);
    const requests = h.fake.requests.length;
    expect(await fireSchedule(h.server.runtime, 'flaky', new Date('2026-07-04T08:00:00Z'))).toEqual({ status: 'skipped', reason: 'paused' });
    await idle();
    expect(h.fake.requests.length).toBe(requests);

    // Stored again by an administrator, it runs again with its count cleared.
    expect((await put('flaky', schedule)).json.schedule).toMatchObject({ paused: false, failures: 0 });
    expect((await getJson(`${h.url}/api/v2/schedules/flaky`)).json.schedule.paused_reason).toBeUndefined();
  });
  it('failed runs that end at the same moment are each counted: three at once pause the schedule', async () => {
    expect((await put('busy', schedule)).status).toBe(201);
    h.fake.respondWith(() => ({ status: 400 }));
    const outcomes = await Promise.all(['10', '11', '12'].map((day) => fireSchedule(h.server.runtime, 'busy', new Date(`2026-07-${day}T08:00:00Z`))));
    expect(outcomes.map((o) => o.status)).toEqual(['started', 'started', 'started']);
    await idle();
    expect((await getJson(`${h.url}/api/v2/schedules/busy`)).json.schedule).toMatchObject({ paused: true, failures: 3, paused_reason: expect.stringMatching(/^3 failed runs in a row/) });
  });

  it('a schedule an earlier version stored (a failures field, a 63-character id) still reads, fires and deletes', async () => {
    const id = `legacy-${'x'.repeat(56)}`;
    expect(id).toHaveLength(63);
    const now = new Date().toISOString();
    await h.server.runtime.artifacts.putJson(`schedules/${id}.json`, { v: 1, id, ...schedule, paused: false, failures: 2, created_at: now, updated_at: now });
    const read = await getJson(`${h.url}/api/v2/schedules/${id}`);
    expect(read.status).toBe(200);
    expect(read.json.schedule).toMatchObject({ id, cron: schedule.cron, failures: 0, next_runs: expect.arrayContaining([expect.any(String)]) });
    h.fake.script({ text: 'Still here.' });
    expect((await fireSchedule(h.server.runtime, id, new Date('2026-09-01T08:00:00Z'))).status).toBe('started');
    await idle();
    expect((await send(h, 'DELETE', `/schedules/${id}`, DEV)).status).toBe(204);
    // New ids keep to 62 characters (EventBridge names a second half `<id>.w`).
    expect((await put(`new-${'y'.repeat(59)}`, schedule)).json.error).toMatchObject({ field: 'schedule_id' });
  });

  it('a cron croner reads but EventBridge Scheduler cannot be given (last day, nth weekday) is a 400 naming cron, here as on AWS', async () => {
    for (const cron of ['0 9 L * *', '0 9 * * 5#3']) {
      const response = await put('not-portable', { ...schedule, cron });
      expect(response.status).toBe(400);
      expect(response.json.error).toMatchObject({ field: 'cron', message: expect.stringMatching(/day-of-(month|week)/) });
    }
    expect((await getJson(`${h.url}/api/v2/schedules/not-portable`)).status).toBe(404);
  });
});
