import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer } from './support/child';
import { DEV, getJson, postJson, send, startHarness, type Harness, childConfig } from './support/harness';
import { chatStream, chatUntil, readSse, type ReceivedEvent } from './support/sse';

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

  const child = (failpoint?: { after: string; signal: 'SIGKILL' | 'SIGSTOP' }) =>
    startChildServer(
      childConfig(h, 1000),
      { failpoint },
    );

  /** Resolves once the child process has ended (it may kill itself at a failpoint). */
  const exited = (server: Awaited<ReturnType<typeof child>>) =>
    new Promise<void>((resolve) => {
      if (server.process.exitCode !== null || server.process.signalCode !== null) return resolve();
      server.process.once('exit', () => resolve());
    });

  /** Resolves once the child process is stopped (SIGSTOP at a failpoint): its state in /proc is `T`. */
  async function frozen(server: Awaited<ReturnType<typeof child>>) {
    for (let i = 0; i < 500; i++) {
      const stat = readFileSync(`/proc/${server.process.pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the child process never froze');
  }

  /** Starts a run on `server`, reads its stream until `until` sees an event, and returns the session id. */
  async function startRun(url: string, message: string, until: (e: ReceivedEvent) => boolean) {
    return (await chatUntil(url, { agent_id: 'tester', message }, until)).sessionId;
  }

  /** Watches the session on a freshly started server (from after the event `after`) until the run is done; watching wakes the stalled run up. */
  async function followToDone(url: string, sessionId: string, after?: string) {
    const controller = new AbortController();
    const response = await fetch(`${url}/api/v2/sessions/${sessionId}/events${after ? `?after=${after}` : ''}`, { headers: DEV, signal: controller.signal });
    const events: ReceivedEvent[] = [];
    for await (const event of readSse(response)) {
      events.push(event);
      if (event.type === 'done') break;
    }
    controller.abort();
    return events;
  }

  async function ledger(file = process.env.ZERO_TEST_LEDGER!) {
    const text = await readFile(file, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean);
  }
  /** Every execution of the ledger tool, including those whose entry was already there. */
  const executions = () => ledger(`${process.env.ZERO_TEST_LEDGER}.executions`);

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
      // Executed once: the killed step made no call, the step asked again made one.
      expect((await executions()).filter((l) => l.endsWith(' model-kill'))).toHaveLength(1);
      expect(h.fake.requests).toHaveLength(3);
    } finally {
      await second.kill();
    }
  });

  it('killed mid tool call: the unfinished call runs again under the same key, exactly once, and the run finishes', async () => {
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'tool-kill', ms: 2000 } }] }, { text: 'All written.' });
    const first = await child();
    const sessionId = await startRun(first.url, 'record tool-kill', (e) => e.type === 'tool_call');
    // The call is durable before it runs; die while it is running (it has started, and waits 2 s before it writes).
    await expect.poll(async () => (await executions()).filter((l) => l.endsWith(' tool-kill')), { timeout: 5_000 }).toHaveLength(1);
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
      const key = `${json.history[0].run_id}:${json.history[1].content[0].id}`;
      expect(lines[0]).toBe(`${key} tool-kill`);
      // Run twice in all, the unfinished attempt and the one after the resume, both under that key.
      expect((await executions()).filter((l) => l.endsWith(' tool-kill'))).toEqual([`${key} tool-kill`, `${key} tool-kill`]);
      expect(h.fake.requests).toHaveLength(2);
    } finally {
      await second.kill();
    }
  });

  // Two servers start in child processes, each compiling Zero on the way: slow on a busy machine.
  it('killed during an approved http_request POST: the call runs again with the same Idempotency-Key, so the receiver can tell it is the same request', async () => {
    // A receiver on loopback that keeps the first request waiting (the server dies meanwhile) and answers the rest.
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const waiting: ServerResponse[] = [];
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    const receiver = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      received.push({ headers: req.headers, body });
      if (received.length === 1) {
        waiting.push(res);
        return arrived();
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"order":"created"}');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // The operator lets tools reach the receiver's loopback address (ZERO_OUTBOUND_ALLOW); Zero's default policy asks before a POST.
    const config = { ...childConfig(h, 1000), outbound: { allow: [host] }, permissions: {} };
    h.fake.script({ toolCalls: [{ name: 'http_request', input: { method: 'POST', url: `http://${host}/orders`, json: { item: 'one box' } } }] }, { text: 'Ordered.' });

    const first = await startChildServer(config);
    let second: Awaited<ReturnType<typeof startChildServer>> | undefined;
    try {
      const { events: asked } = await chatStream(first.url, { agent_id: 'phreak', message: 'order one box' });
      expect(asked.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval' });
      const sessionId = (asked[0] as { session_id: string }).session_id;
      const callId = (asked.find((e) => e.type === 'confirmation_required') as { id: string }).id;
      expect((await send({ url: first.url }, 'POST', `/sessions/${sessionId}/approvals/${callId}`, DEV, { decision: 'allow' })).status).toBe(200);
      await firstArrived;
      await first.kill();

      second = await startChildServer(config);
      // From after the invocation that ended waiting for the decision.
      const events = await followToDone(second.url, sessionId, asked.at(-1)!.event_id);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      const { json } = await getJson(`${second.url}/api/v2/sessions/${sessionId}`);
      expect(json.history.find((r: { kind: string }) => r.kind === 'tool_result')).toMatchObject({ content: expect.stringMatching(/^HTTP 201 Created from POST/) });

      // The POST was sent twice (the first answer never came), both times with the key the README documents.
      const callKey = `${json.history[0].run_id}:${json.history[1].content[0].id}`;
      const key = createHash('sha256').update(`zero http_request ${callKey}`).digest('base64url');
      expect(received.map((r) => [r.headers['idempotency-key'], r.body])).toEqual([
        [key, '{"item":"one box"}'],
        [key, '{"item":"one box"}'],
      ]);
    } finally {
      await first.kill();
      await second?.kill();
      for (const res of waiting) res.destroy();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);

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
      // The finished call ran once; the one the kill interrupted ran again.
      const ran = await executions();
      expect(ran.filter((l) => l.endsWith(' fast'))).toHaveLength(1);
      expect(ran.filter((l) => l.endsWith(' slow'))).toHaveLength(2);
      // The model's second request answered both calls, in the order it made them.
      const answered = (h.fake.requests[1]!.body.messages.at(-1)!.content as { type: string; content: string }[]).filter((b) => b.type === 'tool_result');
      expect(answered.map((b) => b.content)).toEqual(['recorded fast', 'recorded slow']);
    } finally {
      await second.kill();
    }
  });
  it('killed between storing a record and writing its event: the event log holds an event for every stored record', async () => {
    h.fake.script(
      { text: 'Writing it down. ', toolCalls: [{ name: 'ledger', input: { entry: 'event-kill', ms: 0 } }] },
      { text: 'Recorded.' },
    );
    // The process dies the moment the tool result is durable, before that result's event is written.
    const first = await child({ after: 'tool_result', signal: 'SIGKILL' });
    const sessionId = await startRun(first.url, 'record event-kill', (e) => e.type === 'start');
    await exited(first);

    const second = await child();
    try {
      const events = await followToDone(second.url, sessionId);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
      const { json } = await getJson(`${second.url}/api/v2/sessions/${sessionId}`);
      const history = json.history as { kind: string; message_id?: number; content?: { type: string; id?: string }[]; tool_use_id?: string; run_id: string }[];
      expect(history.map((r) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
      const has = (match: (e: ReceivedEvent) => boolean) => events.some(match);
      for (const record of history) {
        if (record.kind === 'user_message') expect(has((e) => e.type === 'message' && e.message_id === record.message_id)).toBe(true);
        for (const block of record.kind === 'assistant' ? record.content!.filter((b) => b.type === 'tool_use') : []) {
          expect(has((e) => e.type === 'tool_call' && e.id === block.id)).toBe(true);
        }
        if (record.kind === 'tool_result') {
          expect(events.filter((e) => e.type === 'tool_result' && e.id === record.tool_use_id)).toEqual([
            expect.objectContaining({ content: 'recorded event-kill', is_error: false }),
          ]);
        }
        if (record.kind === 'run_end') expect(events.filter((e) => e.type === 'done' && e.run_id === record.run_id)).toHaveLength(1);
      }
      expect((await ledger()).filter((l) => l.endsWith(' event-kill'))).toHaveLength(1);
      // The result was durable before the process died: the resumed run did not execute the call again.
      expect((await executions()).filter((l) => l.endsWith(' event-kill'))).toHaveLength(1);
    } finally {
      await second.kill();
    }
  });

  it('a message acknowledged but never recorded (its process died after the 200): reading the session answers it', async () => {
    const { json: created } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester', title: 'orphaned message' });
    const sessionId = created.session.session_id as string;
    // What a process killed between the 200 and the run's first record leaves: the message in the inbox,
    // and the lease it took, never released.
    const runtime = h.server.runtime;
    const message = await runtime.sessions.enqueue(sessionId, { run_id: 'run_orphaned', text: 'still there?', author: { id: 'dev' }, at: new Date().toISOString() });
    await runtime.leases.acquire(sessionId, 'a-dead-instance', message.run_id);
    h.fake.script({ text: 'Still here.' });

    let json: any;
    for (let i = 0; i < 100; i++) {
      ({ json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`));
      if (json.history.some((r: { kind: string }) => r.kind === 'run_end')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(json.queued).toEqual([]);
    expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'run_end']);
    expect(json.history[0]).toMatchObject({ run_id: 'run_orphaned', text: 'still there?' });
    expect(json.history[2]).toMatchObject({ status: 'completed' });
  });

  it('a message acknowledged but never recorded: a watcher of the session gets it answered', async () => {
    const { json: created } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester', title: 'orphaned, watched' });
    const sessionId = created.session.session_id as string;
    const runtime = h.server.runtime;
    await runtime.sessions.enqueue(sessionId, { run_id: 'run_watched', text: 'anyone?', author: { id: 'dev' }, at: new Date().toISOString() });
    await runtime.leases.acquire(sessionId, 'a-dead-instance', 'run_watched');
    h.fake.script({ text: 'Yes, here.' });
    const events = await followToDone(h.url, sessionId);
    expect(events.find((e) => e.type === 'message')).toMatchObject({ text: 'anyone?', run_id: 'run_watched' });
    expect(events.at(-1)).toMatchObject({ type: 'done', run_id: 'run_watched', status: 'completed' });
  });

  it('frozen past its lease before a tool runs: the tool runs once, and the frozen chat stream hands over to the event log', async () => {
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'frozen', ms: 0 } }] }, { text: 'Counted.' });
    // The process freezes the moment the step's tool call is durable, before the call runs.
    const first = await child({ after: 'assistant', signal: 'SIGSTOP' });
    try {
      const chat = await chatUntil(first.url, { agent_id: 'tester', message: 'count once' }, (e) => e.type === 'start');
      await frozen(first);
      // Past the lease, a watcher on another instance takes the session over; it runs the call and ends the run.
      await new Promise((r) => setTimeout(r, 1200));
      const taken = await followToDone(h.url, chat.sessionId);
      expect(taken.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

      first.process.kill('SIGCONT');
      const events = await chat.rest();
      // The frozen instance did not run the call again once it woke up.
      expect((await executions()).filter((l) => l.endsWith(' frozen'))).toHaveLength(1);
      // Its client is told to follow the session's event log, with no ending of its own invented.
      const last = events.at(-1)!;
      expect(last).toMatchObject({ type: 'handover', session_id: chat.sessionId, reason: expect.stringContaining('lease lost') });
      expect(events.filter((e) => e.type === 'done')).toEqual([]);

      // The client follows the session's event log from the handover, as it says, and sees the real ending.
      const controller = new AbortController();
      const response = await fetch(`${h.url}/api/v2/sessions/${chat.sessionId}/events?after=${last.event_id}`, { headers: DEV, signal: controller.signal });
      let done: ReceivedEvent | undefined;
      for await (const event of readSse(response)) {
        if (event.type === 'done') {
          done = event;
          break;
        }
      }
      controller.abort();
      expect(done).toMatchObject({ type: 'done', run_id: last.run_id, status: 'completed' });
      const { json } = await getJson(`${h.url}/api/v2/sessions/${chat.sessionId}`);
      expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
    } finally {
      await first.kill();
    }
  });
});
