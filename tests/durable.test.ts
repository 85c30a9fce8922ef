import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer } from './support/child';
import { DEV, DEV_KEY, TEST_API_KEY, getJson, startHarness, type Harness } from './support/harness';
import { chatUntil, readSse, type ReceivedEvent } from './support/sse';

/**
 * Runs that survive their process: the server is killed with SIGKILL in the
 * middle of a run, started again, and the run finishes with the history it
 * would have had, every tool call executed exactly once.
 */
describe('durable runs', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-durable-'));
    process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
    h = await startHarness({ leaseTtlMs: 1000 });
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => h.fake.reset());

  const child = () =>
    startChildServer({
      store: h.stack.store,
      anthropic: { apiKey: TEST_API_KEY, baseURL: h.fake.url, maxRetries: 0 },
      leaseTtlMs: 1000,
      auth: { staticKeys: [{ key: DEV_KEY, user: { id: 'dev', name: 'Developer' } }] },
    });

  /** Starts a run on `server`, reads its stream until `until` sees an event, and returns the session id. */
  async function startRun(url: string, message: string, until: (e: ReceivedEvent) => boolean) {
    return (await chatUntil(url, { agent_id: 'tester', message }, until)).sessionId;
  }

  /** Watches the session on a freshly started server until the run is done; watching wakes the stalled run up. */
  async function followToDone(url: string, sessionId: string) {
    const controller = new AbortController();
    const response = await fetch(`${url}/api/v2/sessions/${sessionId}/events`, { headers: DEV, signal: controller.signal });
    const events: ReceivedEvent[] = [];
    for await (const event of readSse(response)) {
      events.push(event);
      if (event.type === 'done') break;
    }
    controller.abort();
    return events;
  }

  async function ledger() {
    const text = await readFile(process.env.ZERO_TEST_LEDGER!, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean);
  }

  it('killed mid model stream: the step is asked again and the run finishes as it would have', async () => {
    h.fake.script(
      { text: Array.from({ length: 50 }, (_, i) => `partial${i} `), deltaDelayMs: 40 },
      { text: 'Writing it down. ', toolCalls: [{ name: 'ledger', input: { entry: 'model-kill', ms: 0 } }] },
      { text: 'Recorded.' },
    );
    const first = await child();
    const sessionId = await startRun(first.url, 'record model-kill', (e) => e.type === 'text');
    await first.kill();

    const second = await child();
    try {
      const events = await followToDone(second.url, sessionId);
      expect(events.find((e) => e.type === 'start' && e.resumed)).toBeTruthy();
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
      const { json } = await getJson(`${second.url}/api/v2/sessions/${sessionId}`);
      expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
      expect(json.history[1].content).toEqual([
        { type: 'text', text: 'Writing it down. ' },
        expect.objectContaining({ type: 'tool_use', name: 'ledger', input: { entry: 'model-kill', ms: 0 } }),
      ]);
      expect(json.history[2]).toMatchObject({ kind: 'tool_result', content: 'recorded model-kill' });
      expect(json.history[2].is_error).toBeUndefined();
      expect(json.history[3].content).toEqual([{ type: 'text', text: 'Recorded.' }]);
      // Nothing of the killed attempt was kept.
      expect(JSON.stringify(json.history)).not.toContain('partial');
      expect((await ledger()).filter((l) => l.endsWith(' model-kill'))).toHaveLength(1);
      expect(h.fake.requests).toHaveLength(3);
    } finally {
      await second.kill();
    }
  });

  it('killed mid tool call: the unfinished call runs again under the same key, exactly once, and the run finishes', async () => {
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'tool-kill', ms: 2000 } }] }, { text: 'All written.' });
    const first = await child();
    const sessionId = await startRun(first.url, 'record tool-kill', (e) => e.type === 'tool_call');
    // The call is durable before it runs; die while it is running.
    for (let i = 0; i < 100; i++) {
      const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
      if (json.history?.some((r: { kind: string }) => r.kind === 'assistant')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.kill();
    expect((await ledger()).filter((l) => l.endsWith(' tool-kill'))).toHaveLength(0);

    const second = await child();
    try {
      const events = await followToDone(second.url, sessionId);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
      const { json } = await getJson(`${second.url}/api/v2/sessions/${sessionId}`);
      expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
      expect(json.history[2]).toMatchObject({ kind: 'tool_result', content: 'recorded tool-kill' });
      const lines = (await ledger()).filter((l) => l.endsWith(' tool-kill'));
      expect(lines).toHaveLength(1);
      // The same idempotency key: run id and tool call id.
      expect(lines[0]).toBe(`${json.history[0].run_id}:${json.history[1].content[0].id} tool-kill`);
      expect(h.fake.requests).toHaveLength(2);
    } finally {
      await second.kill();
    }
  });

  it('a finished tool call is not executed again when the run resumes', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'ledger', input: { entry: 'fast', ms: 0 } },
          { name: 'ledger', input: { entry: 'slow', ms: 2500 } },
        ],
      },
      { text: 'Both written.' },
    );
    const first = await child();
    const sessionId = await startRun(first.url, 'two entries', (e) => e.type === 'tool_result');
    await first.kill();

    const second = await child();
    try {
      await followToDone(second.url, sessionId);
      const { json } = await getJson(`${second.url}/api/v2/sessions/${sessionId}`);
      expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'tool_result', 'assistant', 'run_end']);
      const entries = await ledger();
      expect(entries.filter((l) => l.endsWith(' fast'))).toHaveLength(1);
      expect(entries.filter((l) => l.endsWith(' slow'))).toHaveLength(1);
      // The model's second request answered both calls, in the order it made them.
      const answered = (h.fake.requests[1]!.body.messages.at(-1)!.content as { type: string; content: string }[]).filter((b) => b.type === 'tool_result');
      expect(answered.map((b) => b.content)).toEqual(['recorded fast', 'recorded slow']);
    } finally {
      await second.kill();
    }
  });
});
