import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decideApprovals } from '@zero/runtime/sessions/decide-approval';
import type { InProcessQueue } from '@zero/runtime/sessions/queue';
import { DEV, getJson, postJson, send, startHarness, type Harness } from './support/harness';
import { chatStream, readSse, type ReceivedEvent } from './support/sse';

/** A session of the tester agent whose `ledger` calls ask a person first, with an editor (Bob) and a viewer (Carol). */
async function askingSession(h: Harness) {
  const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
  const id = json.session.session_id as string;
  expect((await send(h, 'PUT', `/sessions/${id}/permissions`, DEV, { permissions: { ledger: 'ask' } })).status).toBe(200);
  expect((await send(h, 'PUT', `/sessions/${id}/members/bob`, DEV, { role: 'editor', name: 'Bob' })).status).toBe(201);
  expect((await send(h, 'PUT', `/sessions/${id}/members/carol`, DEV, { role: 'viewer', name: 'Carol' })).status).toBe(201);
  return id;
}

/** Reads the session until its last run has ended (a `run_end` after the last `user_message`). */
async function untilRunEnds(h: Harness, id: string, timeoutMs = 10_000) {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    const history = json.history as { kind: string; status?: string }[];
    if (history.at(-1)?.kind === 'run_end') return json;
    if (Date.now() > giveUp) throw new Error(`the run did not end: ${JSON.stringify(history.map((r) => r.kind))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The tool_result the model was sent for a call, in the fake model's last request. */
function seenByModel(h: Harness, toolCallId: string) {
  const messages = h.fake.requests.at(-1)!.body.messages;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    const block = (message.content as { type: string; tool_use_id?: string }[]).find((b) => b.type === 'tool_result' && b.tool_use_id === toolCallId);
    if (block) return block as unknown as { content: string; is_error?: boolean };
  }
  return undefined;
}

describe('approvals: a call that asks waits for a person, with nothing running', () => {
  let h: Harness;
  let dir: string;
  let bob: Record<string, string>;
  let carol: Record<string, string>;
  let mallory: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-approvals-'));
    process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
    h = await startHarness();
    bob = await h.userHeaders('bob', 'Bob');
    carol = await h.userHeaders('carol', 'Carol');
    mallory = await h.userHeaders('mallory', 'Mallory');
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => h.fake.reset());

  const ledgerRuns = () => h.tools.executions.get('ledger') ?? 0;
  /**
   * Every job sent to the run queue has run to its end. A read or a decision that woke the run would
   * have sent it one before its answer came back: after this, the run has gone on, or nothing did.
   */
  const queueDrained = () => (h.server.runtime.queue as InProcessQueue).idle();

  /** Sends a message whose answer calls the ledger; returns the stream's events and the waiting call's id. */
  const askToWrite = async (id: string, entry: string) => {
    h.fake.script({ text: 'Writing it down. ', toolCalls: [{ name: 'ledger', input: { entry } }] }, { text: 'Done.' });
    const { events } = await chatStream(h.url, { session_id: id, message: `Write ${entry}.` });
    const asked = events.find((e) => e.type === 'confirmation_required') as Extract<ReceivedEvent, { type: 'confirmation_required' }>;
    return { events, callId: asked?.id };
  };

  it('waits with no run holding the lease, is approved by a second member from another connection, runs exactly once and completes', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    const { events, callId } = await askToWrite(id, 'approved');

    expect(events.find((e) => e.type === 'confirmation_required')).toMatchObject({
      name: 'ledger',
      input: { entry: 'approved' },
      policy: expect.stringContaining('ledger'),
      may_answer: ['owner', 'editor'],
    });
    // The stream ends cleanly: its last event is a `done` that says the run waits, and for which calls.
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval', pending: [callId] });
    expect(events.some((e) => e.type === 'tool_result')).toBe(false);
    expect(ledgerRuns()).toBe(before);
    expect((await h.server.runtime.leases.inspect(id))?.active).toBe(false);

    const waiting = (await getJson(`${h.url}/api/v2/sessions/${id}`)).json;
    expect(waiting.active_run_id).toBeNull();
    expect(waiting.awaiting_approval).toMatchObject({ pending: [{ tool_call_id: callId, name: 'ledger', input: { entry: 'approved' } }] });
    expect(Date.parse(waiting.awaiting_approval.pending[0].expires_at) - Date.parse(waiting.awaiting_approval.pending[0].requested_at)).toBe(24 * 3600 * 1000);
    // The sessions list marks it as waiting, for every member.
    const listed = async (headers: Record<string, string>) =>
      ((await getJson(`${h.url}/api/v2/sessions?limit=100`, headers)).json.sessions as { session_id: string; awaiting_approval_since?: string | null }[]).find((s) => s.session_id === id);
    expect(Date.parse((await listed(bob))!.awaiting_approval_since!)).toBeGreaterThan(0);
    // Reading the session does not wake the waiting run.
    await queueDrained();
    expect(ledgerRuns()).toBe(before);
    expect((await h.server.runtime.leases.inspect(id))?.active).toBe(false);

    // A viewer may not decide; someone outside the session does not see it.
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, carol, { decision: 'allow' })).status).toBe(403);
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, mallory, { decision: 'allow' })).status).toBe(404);

    const decided = await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, bob, { decision: 'allow' });
    expect(decided.status).toBe(200);
    expect(decided.json).toMatchObject({ tool_call_id: callId, decision: 'allow', by: { id: 'bob', name: 'Bob' }, pending: [] });

    const done = await untilRunEnds(h, id);
    expect(ledgerRuns()).toBe(before + 1);
    expect(done.awaiting_approval).toBeNull();
    await expect.poll(async () => (await listed(DEV))!.awaiting_approval_since ?? null, { timeout: 10_000 }).toBeNull();
    expect(done.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect(done.history.find((r: { kind: string }) => r.kind === 'approval')).toMatchObject({ tool_use_id: callId, decision: 'allow', by: { id: 'bob' } });
    expect(done.history.find((r: { kind: string }) => r.kind === 'tool_result')).toMatchObject({ tool_use_id: callId, content: 'recorded approved' });
    expect(seenByModel(h, callId)).toMatchObject({ content: 'recorded approved' });

    // Every member sees who decided: the event log carries the `approval` event and the run's own ending.
    const batches = await h.server.runtime.sessions.readEvents(id);
    const logged = batches.flatMap((b) => b.events);
    expect(logged.find((e) => e.type === 'approval')).toMatchObject({ id: callId, decision: 'allow', by: { id: 'bob', name: 'Bob' } });
    expect(logged.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    // The call is decided: deciding again is refused, and changes nothing.
    const again = await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, DEV, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(ledgerRuns()).toBe(before + 1);
  });

  it('a denial gives an error result the model sees, with the decider\'s message, and the tool never runs', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    const { callId } = await askToWrite(id, 'denied');
    const decided = await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, bob, { decision: 'deny', message: 'not in the ledger, please' });
    expect(decided.status).toBe(200);
    const done = await untilRunEnds(h, id);
    expect(done.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect(ledgerRuns()).toBe(before);
    expect(seenByModel(h, callId)).toMatchObject({ type: 'tool_result', tool_use_id: callId, is_error: true, content: 'Tool "ledger" was not run: Bob denied it: not in the ledger, please.' });
  });

  it('several waiting calls are decided one by one: a partial set keeps the run waiting, the last sends it on', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'first' } }, { name: 'ledger', input: { entry: 'second' } }] }, { text: 'Both decided.' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'Write both.' });
    const asked = events.filter((e) => e.type === 'confirmation_required').map((e) => (e as { id: string }).id);
    expect(asked).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval', pending: asked });

    const first = await send(h, 'POST', `/sessions/${id}/approvals/${asked[0]}`, bob, { decision: 'allow' });
    expect(first.json.pending).toEqual([asked[1]]);
    await queueDrained();
    expect(ledgerRuns()).toBe(before);
    expect((await h.server.runtime.leases.inspect(id))?.active).toBe(false);
    expect((await getJson(`${h.url}/api/v2/sessions/${id}`)).json.awaiting_approval.pending.map((p: { tool_call_id: string }) => p.tool_call_id)).toEqual([asked[1]]);

    expect((await send(h, 'POST', `/sessions/${id}/approvals/${asked[1]}`, DEV, { decision: 'deny' })).json.pending).toEqual([]);
    const done = await untilRunEnds(h, id);
    expect(done.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect(ledgerRuns()).toBe(before + 1);
    expect(seenByModel(h, asked[0]!)).toMatchObject({ content: 'recorded first' });
    expect(seenByModel(h, asked[1]!)).toMatchObject({ is_error: true, content: 'Tool "ledger" was not run: Developer denied it.' });
  });

  it('"always for this session": an owner\'s remembered allow decides the step\'s other calls of the tool and later calls run without asking', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'one' } }, { name: 'ledger', input: { entry: 'two' } }] }, { text: 'Both written.' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'Write both.' });
    const asked = events.filter((e) => e.type === 'confirmation_required').map((e) => (e as { id: string }).id);
    expect(asked).toHaveLength(2);

    // Remembering sets a session override: an editor may decide the call, but not for the whole session.
    const byEditor = await send(h, 'POST', `/sessions/${id}/approvals/${asked[0]}`, bob, { decision: 'allow', remember: 'session' });
    expect(byEditor.status).toBe(403);
    expect((await getJson(`${h.url}/api/v2/sessions/${id}`)).json.awaiting_approval.pending).toHaveLength(2);
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${asked[0]}`, DEV, { decision: 'allow', remember: 'always' })).json.error).toMatchObject({ code: 'invalid_request', field: 'remember' });

    const remembered = await send(h, 'POST', `/sessions/${id}/approvals/${asked[0]}`, DEV, { decision: 'allow', remember: 'session' });
    expect(remembered.status).toBe(200);
    expect(remembered.json).toMatchObject({ decision: 'allow', remembered: { rule: 'ledger', decision: 'allow', also_decided: [asked[1]] }, pending: [] });
    await untilRunEnds(h, id);
    expect(ledgerRuns()).toBe(before + 2);
    expect((await getJson(`${h.url}/api/v2/sessions/${id}/permissions`)).json).toMatchObject({ permissions: { ledger: 'allow' }, updated_by: 'dev' });

    // The next call of the tool in this session runs without asking.
    const next = await askToWrite(id, 'three');
    expect(next.callId).toBeUndefined();
    expect(next.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(ledgerRuns()).toBe(before + 3);
  });

  it('a decision recorded by a process that died before the run went on: the next read resumes the run, and the call runs once', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    const { callId } = await askToWrite(id, 'after-crash');
    // The decision is recorded but its queue job is lost, as when the process dies right after the write.
    const lostQueue = { ...h.server.runtime, queue: { send: async () => undefined } };
    const decided = await decideApprovals(lostQueue, id, () => [{ toolCallId: callId, decision: 'allow', by: { id: 'bob', name: 'Bob' } }]);
    expect(decided.pending).toEqual([]);
    // Its job lost, the run is not carried on: nothing reached the queue, nothing holds the session.
    await queueDrained();
    expect(ledgerRuns()).toBe(before);
    expect((await h.server.runtime.leases.inspect(id))?.active).toBe(false);
    const done = await untilRunEnds(h, id);
    expect(done.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect(ledgerRuns()).toBe(before + 1);
    expect(done.history.filter((r: { kind: string; tool_use_id?: string }) => r.kind === 'tool_result' && r.tool_use_id === callId)).toHaveLength(1);
  });

  it('two members deciding at once: exactly one wins, the other gets 409', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    const { callId } = await askToWrite(id, 'raced');
    const answers = await Promise.all([
      send(h, 'POST', `/sessions/${id}/approvals/${callId}`, DEV, { decision: 'allow' }),
      send(h, 'POST', `/sessions/${id}/approvals/${callId}`, bob, { decision: 'deny' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!.json;
    const done = await untilRunEnds(h, id);
    expect(done.history.filter((r: { kind: string }) => r.kind === 'approval')).toHaveLength(1);
    expect(ledgerRuns()).toBe(before + (winner.decision === 'allow' ? 1 : 0));
  });

  it('refuses a stale or unknown decision with 409 and a malformed one with 400 naming the field', async () => {
    const id = await askingSession(h);
    const { callId } = await askToWrite(id, 'stale');
    expect((await send(h, 'POST', `/sessions/${id}/approvals/toolu_unknown`, bob, { decision: 'allow' })).status).toBe(409);
    const malformed = await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, bob, { decision: 'maybe' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('decision');
    // Still waiting: nothing the refused requests sent changed it.
    expect((await getJson(`${h.url}/api/v2/sessions/${id}`)).json.awaiting_approval.pending).toHaveLength(1);
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, bob, { decision: 'allow' })).status).toBe(200);
    await untilRunEnds(h, id);
    // A decision for the call of a run that is over.
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, bob, { decision: 'allow' })).status).toBe(409);
  });

  it('a message sent while a run waits (enqueue) waits behind it, its stream is not held open meanwhile, and it is answered once the run goes on', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    const { callId } = await askToWrite(id, 'queued');
    // The waiting run's last step ('Done.') was scripted with its call; this is the message's answer.
    h.fake.script({ text: 'And hello to you.' });
    // Nothing is held open while a person thinks: the message's stream ends at once with a handover that says why.
    const { events: parked } = await chatStream(h.url, { session_id: id, message: 'Hello?' }, bob);
    const handover = parked.at(-1) as Extract<ReceivedEvent, { type: 'handover' }>;
    expect(handover).toMatchObject({ type: 'handover', session_id: id, reason: expect.stringContaining("waits for a person's decision") });
    expect(parked.some((e) => e.type === 'text')).toBe(false);
    expect((await getJson(`${h.url}/api/v2/sessions/${id}`)).json.queued).toMatchObject([{ run_id: handover.run_id, text: 'Hello?' }]);
    expect(ledgerRuns()).toBe(before);

    // Following the session's events from the handover, the message is answered once the call is decided.
    const follow = new AbortController();
    const stream = await fetch(`${h.url}/api/v2/sessions/${id}/events?after=${handover.event_id}`, { headers: bob, signal: follow.signal });
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, DEV, { decision: 'allow' })).status).toBe(200);
    const answer: ReceivedEvent[] = [];
    for await (const event of readSse(stream, follow.signal)) {
      if ('run_id' in event && event.run_id === handover.run_id) answer.push(event);
      if (event.type === 'done' && event.run_id === handover.run_id) break;
    }
    follow.abort();
    expect(answer.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(answer.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('And hello to you.');
    expect(ledgerRuns()).toBe(before + 1);
  });

  it('a message sent while a run waits with `interrupt` denies the waiting calls with a note, then is answered', async () => {
    const id = await askingSession(h);
    const before = ledgerRuns();
    const { callId } = await askToWrite(id, 'interrupted');
    h.fake.script({ text: 'Hello again.' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'Never mind.', strategy: 'interrupt' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Hello again.');
    expect(ledgerRuns()).toBe(before);
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(json.history.find((r: { kind: string }) => r.kind === 'approval')).toMatchObject({ tool_use_id: callId, decision: 'deny', reason: 'interrupted' });
    expect(json.history.find((r: { kind: string; tool_use_id?: string }) => r.kind === 'tool_result' && r.tool_use_id === callId)).toMatchObject({
      is_error: true,
      content: 'Tool "ledger" was not run: Zero denied it: a new message interrupted the run before anyone decided, so the call was not run.',
    });
  });
});

describe('approvals that nobody decides in time', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ approvalTtlMs: 300 });
  });
  afterAll(() => h.close());

  it('are denied with a note the model sees when the session is next read, and the run goes on', async () => {
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    expect((await send(h, 'PUT', `/sessions/${id}/permissions`, DEV, { permissions: { ledger: 'ask' } })).status).toBe(200);
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'expired' } }] }, { text: 'Nobody answered.' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'Write it.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval' });
    const callId = (events.find((e) => e.type === 'confirmation_required') as { id: string }).id;
    await new Promise((resolve) => setTimeout(resolve, 400));

    const done = await untilRunEnds(h, id);
    expect(h.tools.executions.get('ledger') ?? 0).toBe(0);
    expect(done.history.find((r: { kind: string }) => r.kind === 'approval')).toMatchObject({ tool_use_id: callId, decision: 'deny', reason: 'expired' });
    expect(seenByModel(h, callId)).toMatchObject({ is_error: true, content: expect.stringContaining('nobody decided within 0.3 s') });
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, DEV, { decision: 'allow' })).status).toBe(409);
  });
});
