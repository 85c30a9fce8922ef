import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, getJson, postJson, type Harness } from './support/harness';
import { chatStream, chatUntil, type ReceivedEvent } from './support/sse';

const kinds = async (h: Harness, sessionId: string) =>
  ((await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json.history as { kind: string }[]).map((r) => r.kind);

async function until(probe: () => boolean, what: string) {
  for (let i = 0; i < 400; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const slowText = (words: number) => Array.from({ length: words }, (_, i) => `word${i} `);

describe('stopping a run while the model streams', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('a cancel mid-stream ends the step at once: no retry event, no second model call, done cancelled', async () => {
    h.fake.script({ text: slowText(60), deltaDelayMs: 50 }, { text: 'a second call that must not happen' });
    const run = await chatUntil(h.url, { agent_id: 'tester', message: 'write at length' }, (e) => e.type === 'text');
    expect((await postJson(`${h.url}/api/v2/sessions/${run.sessionId}/cancel`, {})).status).toBe(202);
    const events = await run.rest();

    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled', reason: 'cancelled by request' });
    expect(h.fake.requests).toHaveLength(1);
    expect(h.fake.pending).toBe(1);
    expect(await kinds(h, run.sessionId)).toEqual(['user_message', 'run_end']);
    // The one call that was made is billed, and counted.
    const done = events.at(-1) as Extract<ReceivedEvent, { type: 'done' }>;
    expect(done.usage.input_tokens).toBeGreaterThan(0);
    expect(done.usage.cost_usd).toBeGreaterThan(0);
  });

  it('an interrupt mid-stream ends the step without a retry, and the new message is the only other model call', async () => {
    h.fake.script({ text: slowText(60), deltaDelayMs: 50 }, { text: 'Answer to the interruption.' });
    const first = await chatUntil(h.url, { agent_id: 'tester', message: 'long answer' }, (e) => e.type === 'text');
    const second = await postJson(`${h.url}/api/v2/chat`, { session_id: first.sessionId, message: 'stop, do this', strategy: 'interrupt' });
    const events = await first.rest();

    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled', reason: 'interrupted by a new message' });
    expect(second.json).toMatchObject({ status: 'completed', text: 'Answer to the interruption.' });
    expect(h.fake.requests).toHaveLength(2);
    expect(JSON.stringify(h.fake.requests[1]!.body.messages)).toContain('stop, do this');
  });

  it('a cancel during a stalled stream (after its headers, and before them) frees the session at once: the next message is answered', async () => {
    for (const stall of [{ text: 'Thinking about', stallAfterChunks: 1 }, { hang: true }]) {
      h.fake.reset();
      h.fake.script(stall, { text: 'Next answer.' });
      const run = await chatUntil(h.url, { agent_id: 'tester', message: 'stall' }, (e) => e.type === 'message');
      await until(() => h.fake.requests.length === 1, 'the model request');
      const cancelledAt = performance.now();
      expect((await postJson(`${h.url}/api/v2/sessions/${run.sessionId}/cancel`, {})).status).toBe(202);
      const events = await run.rest();
      const stoppedIn = performance.now() - cancelledAt;

      expect(events.filter((e) => e.type === 'retry')).toEqual([]);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
      // The default idle timeout is 30 s: only the cancel can have ended the stall this soon.
      expect(stoppedIn).toBeLessThan(5_000);
      const next = await postJson(`${h.url}/api/v2/chat`, { session_id: run.sessionId, message: 'next' });
      expect(next.json).toMatchObject({ status: 'completed', text: 'Next answer.' });
      expect(h.fake.requests).toHaveLength(2);
    }
  });
});

describe('a stalled model stream is bounded', () => {
  const IDLE_MS = 400;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { modelIdleTimeoutMs: IDLE_MS, stepAttempts: 2, wallTimeMs: 2_500 } });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  const errorOf = (events: ReceivedEvent[]) => events.find((e) => e.type === 'error') as Extract<ReceivedEvent, { type: 'error' }> | undefined;

  it('a stream that stalls after its headers is retried once, then the run ends with an error naming the idle timeout', async () => {
    h.fake.script({ text: 'Let me', stallAfterChunks: 1 }, { text: 'Let me', stallAfterChunks: 1 });
    const started = performance.now();
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'stall after headers' });
    const took = performance.now() - started;

    expect(events.filter((e) => e.type === 'retry')).toEqual([expect.objectContaining({ attempt: 1, reason: expect.stringContaining(`nothing for ${IDLE_MS} ms`) })]);
    expect(errorOf(events)).toMatchObject({ code: 'model_error', message: expect.stringContaining(`nothing for ${IDLE_MS} ms`) });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    expect(h.fake.requests).toHaveLength(2);
    // Two idle timeouts and a short backoff, not the HTTP client's minutes.
    expect(took).toBeLessThan(2 * IDLE_MS + 2_000);
  });

  it('a request that stalls before any headers is bounded by the same idle timeout', async () => {
    h.fake.script({ hang: true }, { hang: true });
    const started = performance.now();
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'stall before headers' });
    const took = performance.now() - started;

    expect(errorOf(events)).toMatchObject({ code: 'model_error', message: expect.stringContaining(`nothing for ${IDLE_MS} ms`) });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    expect(took).toBeLessThan(2 * IDLE_MS + 2_000);
  });

  it('a message queued behind a stalled run is answered once the stall is cut', async () => {
    h.fake.script({ hang: true }, { hang: true }, { text: 'Answered after the stall.' });
    const first = await chatUntil(h.url, { agent_id: 'tester', message: 'stall' }, (e) => e.type === 'message');
    const queued = await postJson(`${h.url}/api/v2/chat`, { session_id: first.sessionId, message: 'are you there?' });
    expect((await first.rest()).at(-1)).toMatchObject({ type: 'done', status: 'error' });
    expect(queued.json).toMatchObject({ status: 'completed', text: 'Answered after the stall.' });
  });

  it("a stream that keeps talking past the run's time limit is cut at the limit", async () => {
    h.fake.script({ text: slowText(200), deltaDelayMs: 50 });
    const started = performance.now();
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'talk forever' });
    const took = performance.now() - started;

    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'limit', reason: expect.stringContaining('time limit') });
    expect(h.fake.requests).toHaveLength(1);
    expect(took).toBeLessThan(2_500 + 2_000);
  });
});
