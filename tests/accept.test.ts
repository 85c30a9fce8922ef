import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../functions/create-runtime';
import { getJson, postJson, startHarness, type Harness } from './support/harness';
import { chatUntil } from './support/sse';

/**
 * A message at an idle session goes straight into the session's log: the
 * process that takes it claims the lease and records it; only a busy session
 * keeps messages in its inbox. Requests are seen where they leave the
 * runtime's DynamoDB client.
 */
describe('accepting a message', () => {
  let h: Harness;
  let rt: Runtime;
  const requests: { command: string; input: string }[] = [];
  beforeAll(async () => {
    h = await startHarness();
    rt = h.server.runtime;
    rt.sessions.db.middlewareStack.add(
      (next, context) => async (args) => {
        requests.push({ command: String(context.commandName), input: JSON.stringify(args.input) });
        return next(args);
      },
      { step: 'initialize', name: 'countRequestsForTheTest' },
    );
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('a warm session: the message is never written to the inbox, and the turn reads only the session, the membership and the inbox once', async () => {
    h.fake.script({ text: 'first' }, { text: 'On it.', toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, { text: 'Done.' });
    const first = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hello' });
    expect(first.json).toMatchObject({ status: 'completed', text: 'first' });
    const sessionId = first.json.session_id as string;

    requests.length = 0;
    const second = await postJson(`${h.url}/api/v2/chat`, { session_id: sessionId, message: 'echo hi' });
    expect(second.json).toMatchObject({ status: 'completed', text: 'On it.\n\nDone.' });
    const turn = requests.filter((r) => r.input.includes(sessionId));
    const reads = turn.filter((r) => r.command === 'GetItemCommand' || r.command === 'QueryCommand');
    const writes = turn.filter((r) => !reads.includes(r));
    expect(writes.filter((r) => r.input.includes('INBOX'))).toEqual([]);
    // The session and the caller's role; the session's spend counter once, as the run starts (the runs list's
    // cost is what it gains, instead of a write per step); then, before the lease is released, one look for
    // messages that came meanwhile.
    const item = (r: { input: string }) => /"(?:sk|:from)":"([A-Z]+)/.exec(r.input)?.[1];
    expect(reads.map((r) => `${r.command} ${item(r)}`)).toEqual(['GetItemCommand META', 'GetItemCommand MEMBER', 'GetItemCommand SPEND', 'QueryCommand INBOX']);

    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    expect(json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'run_end', 'user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
    expect(json.queued).toEqual([]);
  });

  it('a busy session: a second message waits in the queue, is answered right after the first, and its message id comes after', async () => {
    h.fake.script({ toolCalls: [{ name: 'slow', input: { ms: 800 } }] }, { text: 'first done' }, { text: 'second done' });
    const first = await chatUntil(h.url, { agent_id: 'tester', message: 'first' }, (e) => e.type === 'tool_call');
    const second = postJson(`${h.url}/api/v2/chat`, { session_id: first.sessionId, message: 'second' });
    let queued: { text: string; run_id: string }[] = [];
    for (let i = 0; i < 100 && queued.length === 0; i++) {
      ({ queued } = (await getJson(`${h.url}/api/v2/sessions/${first.sessionId}`)).json);
      if (queued.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(queued).toMatchObject([{ text: 'second' }]);

    const firstEvents = [...first.events, ...(await first.rest())];
    expect(firstEvents.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect((await second).json).toMatchObject({ status: 'completed', text: 'second done', run_id: queued[0]!.run_id });
    const { json } = await getJson(`${h.url}/api/v2/sessions/${first.sessionId}`);
    expect(json.queued).toEqual([]);
    const messages = json.history.filter((r: { kind: string }) => r.kind === 'user_message');
    expect(messages.map((r: { text: string }) => r.text)).toEqual(['first', 'second']);
    expect(messages[0].message_id).toBeLessThan(messages[1].message_id);
    expect(firstEvents.find((e) => e.type === 'message')).toMatchObject({ message_id: messages[0].message_id });
  });
});
