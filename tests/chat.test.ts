import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, postJson, getJson, type Harness, TEST_API_KEY, DEV } from './support/harness';
import { chatStream, chatUntil, readSse, type ReceivedEvent } from './support/sse';

describe('a chat streamed over SSE', () => {
  let h: Harness;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'zero-chat-'));
    h = await startHarness({ dataDir });
  });
  afterAll(async () => {
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  afterEach(() => h.fake.reset());

  it('streams a two-step tool run in order, and the history survives a restart', async () => {
    h.fake.script(
      { text: 'Let me check. ', toolCalls: [{ name: 'echo', input: { text: 'hello' } }] },
      { text: 'The tool said hello.' },
    );
    const { events, response } = await chatStream(h.url, { agent_id: 'tester', message: 'Please echo hello' });
    expect(response.headers.get('content-type')).toContain('text/event-stream');

    const types = events.map((e) => e.type);
    const collapsed = types.filter((t, i) => t !== types[i - 1]);
    expect(collapsed).toEqual(['start', 'message', 'text', 'tool_call', 'tool_usage', 'tool_result', 'text', 'done']);
    expect(events[1]).toMatchObject({ type: 'message', text: 'Please echo hello', author: { id: 'dev', name: 'Developer' } });
    expect(events.every((e) => typeof e.event_id === 'string' && e.event_id.length > 0)).toBe(true);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);

    const start = events[0] as Extract<(typeof events)[0], { type: 'start' }>;
    const call = events.find((e) => e.type === 'tool_call')!;
    expect(call).toMatchObject({ name: 'echo', input: { text: 'hello' } });
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ content: 'echo: hello', is_error: false });
    const text = events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('');
    expect(text).toBe('Let me check. The tool said hello.');
    const done = events.at(-1) as Extract<(typeof events)[0], { type: 'done' }>;
    expect(done.status).toBe('completed');
    expect(done.steps).toBe(2);
    expect(done.usage.input_tokens).toBeGreaterThan(0);
    expect(done.usage.output_tokens).toBeGreaterThan(0);
    expect(h.tools.executions.get('echo')).toBe(1);

    // The second model call saw the tool result.
    const second = h.fake.requests[1]!.body;
    expect(JSON.stringify(second.messages.at(-1))).toContain('echo: hello');

    const before = (await getJson(`${h.url}/api/v2/sessions/${start.session_id}`)).json;
    await h.close();
    h = await startHarness({ dataDir });
    const after = await fetch(`${h.url}/api/v2/sessions/${start.session_id}`, { headers: DEV });
    expect(after.status).toBe(200);
    const body = await after.json();
    expect(body).toEqual(before);
    expect(body.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
    expect(body.session.agent_id).toBe('tester');
  });

  it('continues a session: the model sees the earlier turns', async () => {
    h.fake.script({ text: 'First answer.' }, { text: 'Second answer.' });
    const first = await chatStream(h.url, { agent_id: 'tester', message: 'one' });
    const sessionId = (first.events[0] as { session_id: string }).session_id;
    await chatStream(h.url, { session_id: sessionId, message: 'two' });
    const messages = h.fake.requests[1]!.body.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages)).toContain('First answer.');
  });

  it('puts prompt-cache breakpoints on the system prompt and the conversation', async () => {
    h.fake.script({ text: 'ok' });
    await chatStream(h.url, { agent_id: 'tester', message: 'cache me', voice_mode: 'minimal' });
    const body = h.fake.requests[0]!.body;
    const system = body.system as { text: string; cache_control?: unknown }[];
    expect(system.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(system.map((b) => b.text).join('\n')).toContain('Terse tester.');
    const last = body.messages.at(-1)!.content as { cache_control?: unknown }[];
    expect(last.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.tools!.map((t) => t.name).sort()).toEqual(['big', 'boom', 'echo', 'get_agent_info', 'ledger', 'slow']);
    expect(body.model).toBe('claude-test-model');
  });

  it('answers with JSON when stream is not set', async () => {
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'All done.' });
    const { status, json } = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'go' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 'completed', text: 'All done.', tool_calls: [{ name: 'echo', result: 'echo: x', is_error: false }] });
    expect(json.session_id).toBeTruthy();
  });

  it('answers with JSON whose text keeps the steps apart with a blank line, and always lists delegations', async () => {
    h.fake.script({ text: 'Let me look that up. ', toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'Done.' });
    const { status, json } = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'look it up' });
    expect(status).toBe(200);
    expect(json.text).toBe('Let me look that up.\n\nDone.');
    expect(json.delegations).toEqual([]);
  });

  it('streams a long tool input as tool_call_delta events before its tool_call, and keeps them in the event log', async () => {
    const input = { text: 'z'.repeat(200) };
    h.fake.script({ toolCalls: [{ name: 'echo', id: 'toolu_long_input', input }], inputChunks: 8, inputDelayMs: 150 }, { text: 'ok' });
    const run = await chatUntil(h.url, { agent_id: 'tester', message: 'echo a long one' }, (e) => e.type === 'tool_call_delta');
    // A piece of the input has arrived; the call itself has not.
    expect(run.events.some((e) => e.type === 'tool_call')).toBe(false);
    const events = await run.rest();
    const deltas = events.filter((e) => e.type === 'tool_call_delta') as Extract<ReceivedEvent, { type: 'tool_call_delta' }>[];
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.every((d) => d.id === 'toolu_long_input' && d.name === 'echo' && d.agent_id === 'tester')).toBe(true);
    expect(JSON.parse(deltas.map((d) => d.delta).join(''))).toEqual(input);
    const call = events.findIndex((e) => e.type === 'tool_call');
    expect(events.findLastIndex((e) => e.type === 'tool_call_delta')).toBeLessThan(call);
    expect(events[call]).toMatchObject({ id: 'toolu_long_input', input });

    // A watcher that reads the log later sees the same events under the same ids.
    const replay = await fetch(`${h.url}/api/v2/sessions/${run.sessionId}/events`, { headers: DEV });
    const logged: ReceivedEvent[] = [];
    for await (const event of readSse(replay)) {
      logged.push(event);
      if (event.type === 'done') break;
    }
    expect(logged.filter((e) => e.type === 'tool_call_delta')).toEqual(deltas);
  });

  it('keeps the run going when the client disconnects', async () => {
    h.fake.script({ text: 'a b c d e f g h', deltaDelayMs: 30 });
    const controller = new AbortController();
    const response = await fetch(`${h.url}/api/v2/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify({ agent_id: 'tester', message: 'talk', stream: true }),
      signal: controller.signal,
    });
    let sessionId = '';
    for await (const event of readSse(response)) {
      if (event.type === 'start') sessionId = event.session_id;
      if (event.type === 'text') break;
    }
    controller.abort();
    let kinds: string[] = [];
    for (let i = 0; i < 100 && !kinds.includes('run_end'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      const body = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json;
      kinds = body.history.map((r: { kind: string }) => r.kind);
    }
    expect(kinds).toEqual(['user_message', 'assistant', 'run_end']);
    const body = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json;
    expect(body.history[1].content[0].text).toBe('a b c d e f g h');
  });

  it('lists the agents, and a malformed file is reported by name and field without hiding the others', async () => {
    const { status, json } = await (async () => {
      const r = await fetch(`${h.url}/api/v2/agents`, { headers: DEV });
      return { status: r.status, json: await r.json() };
    })();
    expect(status).toBe(200);
    const ids = json.agents.map((a: { id: string }) => a.id);
    expect(ids).toEqual(expect.arrayContaining(['zero', 'cereal', 'tester']));
    expect(ids).not.toContain('broken');
    expect(json.errors).toContainEqual({ file: 'agents/broken.md', field: 'description', message: expect.stringContaining('description') });
  });

  it('never puts the API key in events, records or errors', async () => {
    h.fake.script({ status: 401 });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'key?' });
    const sessionId = (events[0] as { session_id: string }).session_id;
    const session = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).text;
    expect(JSON.stringify(events)).not.toContain(TEST_API_KEY);
    expect(session).not.toContain(TEST_API_KEY);
    const sent = h.fake.requests[0]!.headers;
    expect(sent['x-api-key'] ?? sent.authorization).toContain(TEST_API_KEY);
  });
});
