import { lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyToUIMessages } from '@zero/agent/ui';
import { DEV, getJson, postJson, send, startHarness, type Harness } from './support/harness';
import { NodeChat, newChatId } from './support/node-chat';
import { chatStream } from './support/sse';

async function untilRunEnds(h: Harness, id: string, timeoutMs = 10_000) {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    if (json.history.at(-1)?.kind === 'run_end') return json;
    if (Date.now() > giveUp) throw new Error(`the run did not end: ${JSON.stringify(json.history.map((r: { kind: string }) => r.kind))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The tool_result the model was sent for a call, in the fake model's last request. */
function seenByModel(h: Harness, toolCallId: string) {
  for (const message of h.fake.requests.at(-1)!.body.messages) {
    if (!Array.isArray(message.content)) continue;
    const block = (message.content as { type: string; tool_use_id?: string }[]).find((b) => b.type === 'tool_result' && b.tool_use_id === toolCallId);
    if (block) return block as unknown as { content: string; is_error?: boolean };
  }
  return undefined;
}

const pickColor = {
  name: 'pick_color',
  description: 'Asks the user to pick a color in the browser.',
  input_schema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
};

describe('client tools: the client runs a tool the model calls, and the run waits for its result', () => {
  let h: Harness;
  let bob: Record<string, string>;
  let carol: Record<string, string>;
  let mallory: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness();
    bob = await h.userHeaders('bob', 'Bob');
    carol = await h.userHeaders('carol', 'Carol');
    mallory = await h.userHeaders('mallory', 'Mallory');
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  /** A session with an editor (Bob) and a viewer (Carol) whose run waits on a `pick_color` call. */
  const waitingOnClient = async () => {
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    expect((await send(h, 'PUT', `/sessions/${id}/members/bob`, DEV, { role: 'editor', name: 'Bob' })).status).toBe(201);
    expect((await send(h, 'PUT', `/sessions/${id}/members/carol`, DEV, { role: 'viewer', name: 'Carol' })).status).toBe(201);
    h.fake.script({ text: 'Let me ask. ', toolCalls: [{ name: 'pick_color', input: { prompt: 'Favourite?' } }] }, { text: 'You picked teal.' });
    const { events } = await chatStream(h.url, { session_id: id, message: 'Ask me for a color.', client_tools: [pickColor] });
    const call = events.find((e) => e.type === 'client_tool_call') as { id: string; name: string; input: unknown } | undefined;
    return { id, events, callId: call?.id as string };
  };

  it('round trip: offered to the model, called, reported, answered by another member, and the model sees the result', async () => {
    const { id, events, callId } = await waitingOnClient();
    // The model was offered the client tool with its schema, beside the agent's own.
    expect(h.fake.requests[0]!.body.tools).toContainEqual(expect.objectContaining({ name: 'pick_color', input_schema: pickColor.input_schema }));
    expect(events.find((e) => e.type === 'client_tool_call')).toMatchObject({ id: callId, name: 'pick_color', input: { prompt: 'Favourite?' } });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval', pending: [callId] });
    expect(events.some((e) => e.type === 'tool_result')).toBe(false);
    expect((await h.server.runtime.leases.inspect(id))?.active).toBe(false);
    const waiting = (await getJson(`${h.url}/api/v2/sessions/${id}`)).json;
    expect(waiting.awaiting_approval).toMatchObject({ pending: [{ kind: 'client_tool', tool_call_id: callId, name: 'pick_color' }] });
    // It waits for a result, not a decision.
    expect((await send(h, 'POST', `/sessions/${id}/approvals/${callId}`, DEV, { decision: 'allow' })).status).toBe(409);

    const answered = await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, bob, { content: 'teal' });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ tool_call_id: callId, is_error: false, truncated: false, by: { id: 'bob' }, pending: [] });

    const done = await untilRunEnds(h, id);
    expect(done.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect(done.history.find((r: { kind: string }) => r.kind === 'tool_result')).toMatchObject({ tool_use_id: callId, content: 'teal' });
    expect(seenByModel(h, callId)).toMatchObject({ content: 'teal' });
    // The resumed run offered the tool still.
    expect(h.fake.requests.at(-1)!.body.tools).toContainEqual(expect.objectContaining({ name: 'pick_color' }));
    // Answered: a second result is stale.
    expect((await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, DEV, { content: 'red' })).status).toBe(409);
  });

  it('a result past the run\'s limit is cut with a notice; an error result reaches the model as one', async () => {
    const { id, callId } = await waitingOnClient();
    const long = 'x'.repeat(h.server.runtime.limits.maxToolOutputChars + 500);
    const answered = await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, DEV, { content: long, is_error: true });
    expect(answered.json).toMatchObject({ is_error: true, truncated: true });
    await untilRunEnds(h, id);
    const seen = seenByModel(h, callId)!;
    expect(seen.is_error).toBe(true);
    expect(seen.content).toContain('[output truncated: 500 of');
  });

  it('refuses an unknown call with 409, a viewer with 403, an outsider with 404 and a malformed result with 400', async () => {
    const { id, callId } = await waitingOnClient();
    expect((await send(h, 'POST', `/sessions/${id}/tool-results/toolu_unknown`, bob, { content: 'x' })).status).toBe(409);
    expect((await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, carol, { content: 'x' })).status).toBe(403);
    expect((await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, mallory, { content: 'x' })).status).toBe(404);
    const malformed = await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, bob, { content: 42 });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.field).toBe('content');
    expect((await getJson(`${h.url}/api/v2/sessions/${id}`)).json.awaiting_approval.pending).toHaveLength(1);
    expect((await send(h, 'POST', `/sessions/${id}/tool-results/${callId}`, bob, { content: 'green' })).status).toBe(200);
    await untilRunEnds(h, id);
  });

  it('refuses a declaration that clashes with a server tool, repeats a name or has no object schema, with 400 naming the field', async () => {
    const clash = await send(h, 'POST', '/chat', DEV, { message: 'hi', agent_id: 'tester', client_tools: [pickColor, { ...pickColor, name: 'ledger' }] });
    expect(clash.status).toBe(400);
    expect(clash.json.error.field).toBe('client_tools.1.name');
    const twice = await send(h, 'POST', '/chat', DEV, { message: 'hi', client_tools: [pickColor, pickColor] });
    expect(twice.status).toBe(400);
    expect(twice.json.error.field).toBe('client_tools.1.name');
    const schema = await send(h, 'POST', '/chat', DEV, { message: 'hi', client_tools: [{ ...pickColor, input_schema: { type: 'string' } }] });
    expect(schema.status).toBe(400);
    expect(schema.json.error.field).toBe('client_tools.0.input_schema.type');
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe("useChat client tools: onToolCall, addToolOutput and the AI SDK's automatic send", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  type Part = { type: string; toolCallId?: string; state?: string; input?: unknown; output?: unknown; errorText?: string };
  const pickPart = (message: UIMessage | undefined) => message?.parts.find((p) => p.type === 'tool-pick_color') as Part | undefined;

  /** A chat declaring `pick_color` whose client answers it in `onToolCall`, as the AI SDK's docs show. */
  const clientChat = (answer: (chat: NodeChat, toolCallId: string) => Promise<void>) => {
    const id = newChatId();
    const calls: string[] = [];
    const chat: NodeChat = new NodeChat(
      h.url,
      id,
      DEV,
      { agent_id: 'tester', client_tools: [pickColor] },
      {
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
        onToolCall: async ({ toolCall }) => {
          if (toolCall.toolName !== 'pick_color') return;
          calls.push(toolCall.toolCallId);
          // Not awaited: the AI SDK's docs warn that awaiting addToolOutput inside onToolCall can deadlock.
          void answer(chat, toolCall.toolCallId);
        },
      },
    );
    return { id, chat, calls };
  };

  it('the model calls a client tool; onToolCall runs it, addToolOutput sends the output, and the run completes with it', async () => {
    const { id, chat, calls } = clientChat(async (chat, toolCallId) => chat.addToolOutput({ tool: 'pick_color', toolCallId, output: 'teal' }));
    h.fake.script({ text: 'Let me ask. ', toolCalls: [{ name: 'pick_color', input: { prompt: 'Favourite?' } }] }, { text: 'You picked teal.' });
    await chat.sendMessage({ text: 'Ask me for a color.' });
    await until(() => chat.status === 'ready' && texts(chat.messages.at(-1)).includes('You picked teal.'));

    expect(chat.error).toBeUndefined();
    expect(calls).toHaveLength(1);
    // The model was offered the tool with the schema the client declared, and was sent the client's output.
    expect(h.fake.requests[0]!.body.tools?.find((t: { name: string }) => t.name === 'pick_color')).toMatchObject({ input_schema: pickColor.input_schema });
    expect(seenByModel(h, calls[0]!)).toMatchObject({ content: 'teal' });
    expect(pickPart(chat.messages.at(-1))).toMatchObject({ toolCallId: calls[0], state: 'output-available', output: 'teal' });
    expect(chat.messages.at(-1)!.metadata).toMatchObject({ status: 'completed' });

    // Recorded as the tool-results route records it, by whoever answered.
    const session = await untilRunEnds(h, id);
    expect(session.history.find((r: { kind: string }) => r.kind === 'approval')).toMatchObject({ tool_use_id: calls[0], decision: 'allow', by: { id: 'dev' }, result: { content: 'teal' } });
    expect(session.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    // Reloaded, the call shows its output rather than an approval request.
    expect(pickPart(historyToUIMessages(session.history).at(-1))).toMatchObject({ toolCallId: calls[0], state: 'output-available', output: 'teal' });
  });

  it("a client tool's error output reaches the model as an error result", async () => {
    const { chat, calls } = clientChat(async (chat, toolCallId) => chat.addToolOutput({ state: 'output-error', tool: 'pick_color', toolCallId, errorText: 'the user closed the picker' }));
    h.fake.script({ toolCalls: [{ name: 'pick_color', input: { prompt: 'Favourite?' } }] }, { text: 'No color then.' });
    await chat.sendMessage({ text: 'Ask me for a color.' });
    await until(() => chat.status === 'ready' && texts(chat.messages.at(-1)).includes('No color then.'));
    expect(seenByModel(h, calls[0]!)).toMatchObject({ is_error: true, content: 'the user closed the picker' });
  });

  it('a client tool declared with a server tool\'s name is a 400 naming the field, and nothing runs', async () => {
    const response = await fetch(`${h.url}/api/v2/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify({ id: newChatId(), trigger: 'submit-message', client_tools: [{ ...pickColor, name: 'ledger' }], messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { field: string } }).error.field).toMatch(/^client_tools\.0\.name$/);
    expect(h.fake.requests).toHaveLength(0);
  });
});

const texts = (message: UIMessage | undefined) => message?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) ?? [];

async function until(condition: () => boolean, timeoutMs = 10_000) {
  const giveUp = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUp) throw new Error('timed out waiting for the chat');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
