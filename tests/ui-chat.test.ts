import { uiMessageChunkSchema, type UIMessage } from 'ai';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyToUIMessages } from '@zero/agent/ui';
import { startHarness, getJson, postJson, DEV, type Harness } from './support/harness';
import { chatStream } from './support/sse';
import { NodeChat, newChatId } from './support/node-chat';

async function until<T>(probe: () => T | Promise<T>, what: string): Promise<NonNullable<T>> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Reads a UI message stream response as raw chunks, keeping the `[DONE]` marker. */
async function readChunks(response: Response) {
  const chunks: unknown[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return chunks;
    chunks.push(value.data === '[DONE]' ? '[DONE]' : JSON.parse(value.data));
  }
}

function uiChatBody(id: string, text: string, extra: Record<string, unknown> = {}, earlier: unknown[] = []) {
  return { id, trigger: 'submit-message', messages: [...earlier, { id: `m-${Math.random()}`, role: 'user', parts: [{ type: 'text', text }] }], ...extra };
}

describe('useChat against Zero: the AI SDK UI message stream', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it("the AI SDK's chat client reconstructs the assistant message, its tool call and result, from a real Zero run", async () => {
    h.fake.script({ text: 'Let me check. ', toolCalls: [{ name: 'echo', input: { text: 'hello' } }] }, { text: 'The tool said hello.' });
    const id = newChatId();
    const chat = new NodeChat(h.url, id, DEV, { agent_id: 'tester' });
    await chat.sendMessage({ text: 'Please echo hello' });

    expect(chat.error).toBeUndefined();
    expect(chat.status).toBe('ready');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const answer = chat.messages[1]!;
    expect(answer.id).toMatch(/^run_/);
    expect(answer.metadata).toMatchObject({ session_id: id, run_id: answer.id, agent_id: 'tester', status: 'completed' });
    const parts = answer.parts.filter((p) => p.type !== 'data-usage');
    expect(parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'Let me check. ', state: 'done' },
      expect.objectContaining({ type: 'tool-echo', toolCallId: expect.any(String), state: 'output-available', input: { text: 'hello' }, output: 'echo: hello' }),
      { type: 'step-start' },
      { type: 'text', text: 'The tool said hello.', state: 'done' },
    ]);
    const usage = answer.parts.find((p) => p.type === 'data-usage') as { data: { status: string; steps: number; usage: { output_tokens: number } } };
    expect(usage.data).toMatchObject({ status: 'completed', steps: 2 });
    expect(usage.data.usage.output_tokens).toBeGreaterThan(0);

    // The chat id is the Zero session: created for the caller, history in DynamoDB.
    const session = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(session.status).toBe(200);
    expect(session.json.session).toMatchObject({ session_id: id, agent_id: 'tester', title: 'Please echo hello', created_by: 'dev' });
    expect(session.json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
  });

  it('answers with the protocol headers, chunks that match the AI SDK schema, and data: [DONE]', async () => {
    h.fake.script({ text: 'Trying.', toolCalls: [{ name: 'boom', input: {} }] }, { text: 'It failed.' });
    const response = await fetch(`${h.url}/api/v2/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify(uiChatBody(newChatId(), 'Break something', { agent_id: 'tester' })),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('x-accel-buffering')).toBe('no');

    const chunks = await readChunks(response);
    expect(chunks.at(-1)).toBe('[DONE]');
    const schema = uiMessageChunkSchema();
    for (const chunk of chunks.slice(0, -1)) {
      const result = await schema.validate!(chunk);
      expect(result, JSON.stringify(chunk)).toMatchObject({ success: true });
    }
    const types = (chunks.slice(0, -1) as { type: string }[]).map((c) => c.type).filter((t, i, all) => t !== all[i - 1]);
    expect(types).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-available',
      'data-tool-usage',
      'tool-output-error',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'data-usage',
      'finish-step',
      'finish',
    ]);
    expect(chunks.find((c) => (c as { type: string }).type === 'tool-output-error')).toMatchObject({ errorText: expect.stringContaining('boom') });
    expect(chunks.at(-2)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it("takes only the new message from the request: the model sees Zero's history, not the client's", async () => {
    h.fake.script({ text: 'First answer.' }, { text: 'Second answer.' });
    const id = newChatId();
    const chat = new NodeChat(h.url, id, DEV, { agent_id: 'tester' });
    await chat.sendMessage({ text: 'first question' });
    // A client that rewrites the earlier turns does not change what the model sees.
    chat.plain.messages[0] = { ...chat.plain.messages[0]!, parts: [{ type: 'text', text: 'TAMPERED' }] };
    await chat.sendMessage({ text: 'second question' });

    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(chat.messages[3]!.parts).toContainEqual({ type: 'text', text: 'Second answer.', state: 'done' });
    const seen = JSON.stringify(h.fake.requests[1]!.body.messages);
    expect(seen).toContain('first question');
    expect(seen).toContain('First answer.');
    expect(seen).toContain('second question');
    expect(seen).not.toContain('TAMPERED');
  });

  it('resumes: a second client re-attaches to the active run from the event log; with none active it gets 204', async () => {
    // The second model call hangs, so the run stays active until it is cancelled.
    h.fake.script({ text: 'Checking first.', toolCalls: [{ name: 'echo', input: { text: 'one' } }] }, { hang: true });
    const id = newChatId();
    const writer = new NodeChat(h.url, id, DEV, { agent_id: 'tester' });
    const sent = writer.sendMessage({ text: 'Check and wait' });
    const active = await until(async () => (await getJson(`${h.url}/api/v2/sessions/${id}`)).json?.active_run_id, 'the run to start');

    // A page reload: useChat({ resume: true }) with the history from the server, here just the user's message.
    const reader = new NodeChat(h.url, id, DEV);
    reader.plain.messages.push({ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Check and wait' }] });
    const resumed = reader.resumeStream();
    await until(() => reader.messages[1]?.parts.some((p) => p.type === 'tool-echo' && p.state === 'output-available'), 'the resumed stream to show the tool result');
    expect(reader.messages[1]!.id).toBe(active);
    expect(reader.messages[1]!.parts.slice(0, 3)).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'Checking first.', state: 'done' },
      expect.objectContaining({ type: 'tool-echo', input: { text: 'one' }, output: 'echo: one' }),
    ]);

    expect((await postJson(`${h.url}/api/v2/sessions/${id}/cancel`, {})).status).toBe(202);
    await Promise.all([sent, resumed]);
    expect(reader.messages[1]!.metadata).toMatchObject({ status: 'cancelled', run_id: active });
    expect(writer.messages[1]!.metadata).toMatchObject({ status: 'cancelled', run_id: active });

    const none = await fetch(`${h.url}/api/v2/ui/chat/${id}/stream`, { headers: DEV });
    expect(none.status).toBe(204);
    // The AI SDK treats 204 as "nothing to resume".
    const idle = new NodeChat(h.url, id, DEV);
    await idle.resumeStream();
    expect(idle.status).toBe('ready');
    expect(idle.messages).toEqual([]);
  });

  it('streams a tool call\'s input while the model writes it: the chat client shows the partial input before the input is complete', async () => {
    const content = 'x'.repeat(300);
    // The model writes the input in 10 pieces over 1.5 s.
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: content } }], inputChunks: 10, inputDelayMs: 150 }, { text: 'Echoed.' });
    const id = newChatId();
    const chat = new NodeChat(h.url, id, DEV, { agent_id: 'tester' });
    const sent = chat.sendMessage({ text: 'echo a long text' });
    const partial = await until(() => {
      const part = chat.plain.messages[1]?.parts.find((p) => p.type === 'tool-echo') as { state: string; input?: { text?: string } } | undefined;
      return part?.state === 'input-streaming' && part.input?.text ? structuredClone(part) : undefined;
    }, 'a partial tool input');
    expect(partial.input!.text!.length).toBeGreaterThan(0);
    expect(partial.input!.text!.length).toBeLessThan(content.length);
    // The model had not finished writing the input when the client showed part of it.
    expect(h.fake.requests).toHaveLength(1);

    await sent;
    expect(chat.messages[1]!.parts).toContainEqual(
      expect.objectContaining({ type: 'tool-echo', state: 'output-available', input: { text: content }, output: `echo: ${content}` }),
    );
  });

  it('streams tool input over the raw UI stream as tool-input-delta chunks that arrive apart, ending in the whole input', async () => {
    const input = { text: 'y'.repeat(200) };
    h.fake.script({ toolCalls: [{ name: 'echo', input }], inputChunks: 8, inputDelayMs: 150 }, { text: 'ok' });
    const response = await fetch(`${h.url}/api/v2/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify(uiChatBody(newChatId(), 'echo', { agent_id: 'tester' })),
    });
    const arrivals: { chunk: { type: string; inputTextDelta?: string; input?: unknown }; at: number }[] = [];
    const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (next.value.data !== '[DONE]') arrivals.push({ chunk: JSON.parse(next.value.data), at: performance.now() });
    }
    const deltas = arrivals.filter((a) => a.chunk.type === 'tool-input-delta');
    const available = arrivals.find((a) => a.chunk.type === 'tool-input-available')!;
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(deltas.map((d) => d.chunk.inputTextDelta).join(''))).toEqual(input);
    expect(available.chunk.input).toEqual(input);
    // The first piece arrived long before the input was complete (the model took about 1.2 s to write it).
    expect(available.at - deltas[0]!.at).toBeGreaterThan(600);
    expect(arrivals.filter((a) => a.chunk.type === 'tool-input-start')).toHaveLength(1);
  });

  it('historyToUIMessages rebuilds from the stored history the messages useChat streamed, and a chat seeded with them carries on', async () => {
    h.fake.script(
      { text: 'Let me check. ', toolCalls: [{ name: 'echo', input: { text: 'hello' } }, { name: 'boom', input: {} }] },
      { text: 'One worked, one failed.' },
      { text: 'Second answer.' },
    );
    const id = newChatId();
    const live = new NodeChat(h.url, id, DEV, { agent_id: 'tester' });
    await live.sendMessage({ text: 'Try two tools' });

    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    const seeded = historyToUIMessages(json.history, json.queued);
    expect(seeded.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(seeded[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'Try two tools' }], metadata: { author: { id: 'dev' } } });
    // The answer is the one the stream built: same id, same parts in the same order, same outcome.
    const streamed = live.messages[1]!;
    expect(seeded[1]!.id).toBe(streamed.id);
    const toolFields = ({ type, toolCallId, state, input, output, errorText }: Record<string, unknown>) => ({ type, toolCallId, state, input, output, errorText });
    expect(seeded[1]!.parts).toEqual(streamed.parts.map((p) => ('toolCallId' in p ? toolFields(p) : p)));
    expect(seeded[1]!.metadata).toEqual({ run_id: streamed.id, agent_id: 'tester', model: 'claude-test-model', effort: 'off', status: 'completed', usage: (streamed.metadata as { usage: unknown }).usage });

    // An app opens the chat with these messages and goes on.
    const reopened = new NodeChat(h.url, id, DEV);
    reopened.plain.messages.push(...(seeded as UIMessage[]));
    await reopened.sendMessage({ text: 'And now?' });
    expect(reopened.error).toBeUndefined();
    expect(reopened.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(reopened.messages[3]!.parts).toContainEqual({ type: 'text', text: 'Second answer.', state: 'done' });
  });

  it('refuses bad requests with a 4xx that names the field', async () => {
    const post = (body: unknown, headers: Record<string, string> = DEV) => postJson(`${h.url}/api/v2/ui/chat`, body, headers);
    const cases: [unknown, number, string, string][] = [
      [uiChatBody('short', 'hi'), 400, 'invalid_request', 'id'],
      [uiChatBody('has/slash/in/it', 'hi'), 400, 'invalid_request', 'id'],
      [{ ...uiChatBody(newChatId(), 'hi'), messages: [] }, 400, 'invalid_request', 'messages'],
      [{ ...uiChatBody(newChatId(), 'hi'), messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }, 400, 'invalid_request', 'messages.0.role'],
      [{ ...uiChatBody(newChatId(), 'hi'), messages: [{ id: 'a', role: 'user', parts: [{ type: 'file', url: 'x', mediaType: 'image/png' }] }] }, 400, 'invalid_request', 'messages.0.parts.0.url'],
      [{ ...uiChatBody(newChatId(), 'hi'), trigger: 'regenerate-message' }, 400, 'invalid_request', 'trigger'],
      [uiChatBody(newChatId(), 'hi', { agent_id: 'nobody' }), 404, 'agent_not_found', ''],
      [uiChatBody(newChatId(), 'hi', { voice_mode: 'loud' }), 400, 'invalid_request', 'voice_mode'],
      [uiChatBody(newChatId(), 'hi', { agentId: 'tester' }), 400, 'invalid_request', ''],
      [uiChatBody(newChatId(), 'x'.repeat(100_001)), 413, 'payload_too_large', 'messages.0.parts'],
    ];
    for (const [body, status, code, field] of cases) {
      const { status: got, json } = await post(body);
      expect({ got, code: json?.error?.code }, JSON.stringify(body).slice(0, 200)).toEqual({ got: status, code });
      if (field) expect(json.error.field).toBe(field);
    }
    expect((await post('{not json')).status).toBe(400);
    expect((await post(uiChatBody(newChatId(), 'hi'), {})).status).toBe(401);
    expect((await fetch(`${h.url}/api/v2/ui/chat/bad!id/stream`, { headers: DEV })).status).toBe(400);
  });

  it("keeps another user's chat private: neither its messages nor its stream", async () => {
    h.fake.script({ text: 'mine' });
    const id = newChatId();
    await new NodeChat(h.url, id, DEV, { agent_id: 'tester' }).sendMessage({ text: 'private' });
    const mallory = await h.userHeaders('mallory');
    const intruder = new NodeChat(h.url, id, mallory);
    await intruder.sendMessage({ text: 'let me in' });
    expect(intruder.status).toBe('error');
    expect(intruder.error?.message).toContain('session_not_found');
    expect((await fetch(`${h.url}/api/v2/ui/chat/${id}/stream`, { headers: mallory })).status).toBe(404);
    expect(h.fake.requests).toHaveLength(1);
  });
  it('a run of a plan carries its steps as one data-plan-progress part, replaced at each report, that the history rebuilds the same', async () => {
    // The run reports, then hangs on its next model call: a client attaches while it runs.
    h.fake.script(
      { toolCalls: [{ id: 'toolu_pp1', name: 'plan_progress', input: { step: 1, status: 'started' } }] },
      {
        toolCalls: [
          { id: 'toolu_pp2', name: 'plan_progress', input: { step: 1, status: 'done', note: '212 packages' } },
          { id: 'toolu_pp3', name: 'plan_progress', input: { step: 2, status: 'failed', note: 'no advisory data' } },
          { id: 'toolu_pp4', name: 'plan_progress', input: { step: 9, status: 'started' } },
        ],
      },
      { hang: true },
    );
    const created = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = created.json.session.session_id as string;
    const plan = { goal: 'Audit the lockfile', steps: ['Read package-lock.json', 'Rank the packages by risk', 'Write the report'], agent: 'tester' };
    const sent = chatStream(h.url, { session_id: id, plan });
    const active = await until(async () => (await getJson(`${h.url}/api/v2/sessions/${id}`)).json?.active_run_id, 'the run to start');
    const reader = new NodeChat(h.url, id, DEV);
    const resumed = reader.resumeStream();
    const expected = {
      type: 'data-plan-progress',
      id: `plan-${active}`,
      data: {
        steps: 3,
        reported: [
          { step: 1, title: 'Read package-lock.json', status: 'done', note: '212 packages' },
          { step: 2, title: 'Rank the packages by risk', status: 'failed', note: 'no advisory data' },
        ],
      },
    };
    const planParts = () => reader.messages.at(-1)?.parts.filter((p) => p.type === 'data-plan-progress') ?? [];
    await until(() => (planParts()[0] as { data?: { reported: unknown[] } } | undefined)?.data?.reported.length === 2, 'the second report');
    // One part, replaced in place: the last report stands (the refused step 9 reports nothing).
    expect(planParts()).toEqual([expected]);

    expect((await postJson(`${h.url}/api/v2/sessions/${id}/cancel`, {})).status).toBe(202);
    await Promise.all([sent, resumed]);
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    const seeded = historyToUIMessages(json.history, json.queued).at(-1)!;
    expect(seeded.parts.filter((p) => p.type === 'data-plan-progress')).toEqual([expected]);
    // Where it stands in the answer agrees too: after the step's tool calls.
    const order = (parts: { type: string }[]) => parts.map((p) => p.type).filter((t) => t !== 'data-usage');
    expect(order(seeded.parts)).toEqual(order(reader.messages.at(-1)!.parts));
  });
});
