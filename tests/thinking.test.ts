import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { UIMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '@zero/runtime/store/clients';
import { historyToUIMessages } from '@zero/agent/ui';
import { DEV, getJson, startHarness, type Harness, childConfig } from './support/harness';
import { startChildServer } from './support/child';
import { NodeChat, newChatId } from './support/node-chat';
import { chatStream, chatUntil, readSse, type ReceivedEvent } from './support/sse';

const CAREFUL = `---
name: careful
description: Thinks hard, on a model that cannot.
model: claude-3-5-haiku-latest
effort: high
tools: echo
---

You try to think.
`;
const BAD = `---
name: overthinker
description: A budget under the API's minimum.
thinking:
  budget_tokens: 500
---

Body.
`;

const DELIBERATE = `---
name: deliberate
description: Thinks on a model that decides for itself how much.
model: claude-opus-4-6
effort: medium
tools: echo
---

You think, then echo.
`;
const NEXT = `---
name: next-gen
description: A Claude 5 model with a budget.
model: claude-sonnet-5
effort: low
---

Body.
`;

type Block = { type: string; thinking?: string; signature?: string; data?: string; id?: string };

describe('extended thinking: streamed, kept with its signature, and sent back unchanged in a tool loop', () => {
  let h: Harness;
  let s3: S3Client;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1000 });
    s3 = createS3Client(h.stack.store);
    // thinker.md is a fixture of the suite (tests/fixtures/agents); these two only this file needs.
    for (const [file, body] of [['careful', CAREFUL], ['overthinker', BAD], ['deliberate', DELIBERATE], ['next-gen', NEXT]]) {
      await s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: `agents/${file}.md`, Body: body, ContentType: 'text/markdown' }));
    }
  });
  afterAll(async () => {
    s3.destroy();
    await h.close();
  });
  afterEach(() => h.fake.reset());

  const twoSteps = () =>
    h.fake.script(
      { thinking: 'The user wants an echo. I will call the echo tool first.', redactedThinking: 'ZW5jcnlwdGVk', toolCalls: [{ name: 'echo', input: { text: 'hi' } }] },
      { thinking: 'The echo came back; now I answer.', text: 'Echoed: hi.' },
    );

  it('asks for thinking with the agent\'s budget, streams it, stores it as received, and the second step passes the API\'s check', async () => {
    twoSteps();
    const { events } = await chatStream(h.url, { agent_id: 'thinker', message: 'Echo hi.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    const first = h.fake.requests[0]!;
    expect(first.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(first.body.max_tokens).toBe(8192 + 2048);
    expect(String(first.headers['anthropic-beta'])).toContain('interleaved-thinking');
    // The thinking streamed as it came, before the tool call; the redacted block is said so.
    const thinking = events.filter((e) => e.type === 'thinking') as Extract<ReceivedEvent, { type: 'thinking' }>[];
    expect(thinking.filter((e) => !e.redacted).map((e) => e.delta).join('')).toBe('The user wants an echo. I will call the echo tool first.The echo came back; now I answer.');
    expect(thinking.some((e) => e.redacted)).toBe(true);
    expect(events.findIndex((e) => e.type === 'thinking')).toBeLessThan(events.findIndex((e) => e.type === 'tool_call'));
    // The fake refuses a tool loop whose thinking was dropped or changed: it did not.
    expect(h.fake.thinkingRefusals).toEqual([]);
    const sentBack = (h.fake.requests[1]!.body.messages.at(-2)!.content as Block[]).filter((b) => b.type !== 'tool_use');
    expect(sentBack.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking']);
    expect(sentBack[0]!.signature).toMatch(/^sig_/);

    const id = (events.find((e) => e.type === 'start') as { session_id: string }).session_id;
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    const assistant = json.history.find((r: { kind: string }) => r.kind === 'assistant');
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants an echo. I will call the echo tool first.', signature: sentBack[0]!.signature });
    expect(assistant.content[1]).toEqual({ type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' });
    // Thinking is output: the run's usage counts its tokens.
    const done = events.at(-1) as Extract<ReceivedEvent, { type: 'done' }>;
    expect(done.usage.output_tokens).toBeGreaterThanOrEqual(Math.ceil('The user wants an echo. I will call the echo tool first.'.length / 4));
    // Reloaded for useChat, the thinking is a reasoning part.
    expect(historyToUIMessages(json.history).at(-1)!.parts.filter((p) => p.type === 'reasoning').map((p) => (p as { text: string }).text)).toEqual([
      'The user wants an echo. I will call the echo tool first.',
      '[redacted thinking]',
      'The echo came back; now I answer.',
    ]);
  });

  it('the fake model holds Zero to the rule: a tool loop with its thinking dropped is refused with a 400', async () => {
    twoSteps();
    await chatStream(h.url, { agent_id: 'thinker', message: 'Echo hi.' });
    const second = h.fake.requests[1]!.body;
    const tampered = structuredClone(second);
    const turn = tampered.messages.at(-2)!;
    turn.content = (turn.content as Block[]).filter((b) => b.type === 'tool_use');
    h.fake.script({ text: 'unused' });
    const response = await fetch(`${h.fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tampered) });
    expect(response.status).toBe(400);
    expect(h.fake.thinkingRefusals).toHaveLength(1);
  });

  it('GET /agents says what thinking each agent gets; a model without it runs without; a budget under the minimum names the field', async () => {
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const byId = (id: string) => json.agents.find((a: { id: string }) => a.id === id);
    expect(byId('thinker').thinking).toEqual({ budget_tokens: 2048 });
    expect(byId('careful').thinking).toEqual({ off: 'model "claude-3-5-haiku-latest" does not support extended thinking' });
    expect(byId('zero').thinking).toMatchObject({ off: expect.stringContaining('ZERO_THINKING_BUDGET') });
    expect(json.errors.find((e: { file: string }) => e.file === 'agents/overthinker.md')).toMatchObject({ field: 'thinking.budget_tokens', message: expect.stringMatching(/at least 1024/) });

    h.fake.script({ thinking: 'never asked for', text: 'Plain answer.' });
    const { events } = await chatStream(h.url, { agent_id: 'careful', message: 'Think.' });
    expect(h.fake.requests[0]!.body.thinking).toBeUndefined();
    expect(events.some((e) => e.type === 'thinking')).toBe(false);
  });

  it('on a model where the API prefers adaptive thinking, asks for it with the effort instead of a budget, and the tool loop still passes', async () => {
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const byId = (id: string) => json.agents.find((a: { id: string }) => a.id === id);
    expect(byId('deliberate').thinking).toEqual({ budget_tokens: 8192, adaptive: { effort: 'medium' } });
    expect(byId('next-gen').thinking).toEqual({ budget_tokens: 2048 });

    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
    try {
      twoSteps();
      const { events } = await chatStream(h.url, { agent_id: 'deliberate', message: 'Echo hi.' });
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
      expect(events.filter((e) => e.type === 'thinking').length).toBeGreaterThan(0);
    } finally {
      console.warn = warn;
    }
    for (const request of h.fake.requests) {
      expect(request.body.thinking).toEqual({ type: 'adaptive' });
      expect(request.body.output_config).toEqual({ effort: 'medium' });
    }
    expect(h.fake.thinkingRefusals).toEqual([]);
    // The SDK warns on every call that sends this model a budget; none is sent.
    expect(warnings.filter((w) => w.includes('thinking.type=enabled'))).toEqual([]);
  });

  it("useChat receives the thinking as the AI SDK's reasoning parts", async () => {
    twoSteps();
    const chat = new NodeChat(h.url, newChatId(), DEV, { agent_id: 'thinker' });
    await chat.sendMessage({ text: 'Echo hi.' });
    expect(chat.error).toBeUndefined();
    const answer = chat.messages.at(-1) as UIMessage;
    const reasoning = answer.parts.filter((p) => p.type === 'reasoning') as { text: string; state?: string }[];
    expect(reasoning.map((p) => p.text)).toEqual(['The user wants an echo. I will call the echo tool first.', '[redacted thinking]', 'The echo came back; now I answer.']);
    expect(answer.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual(['Echoed: hi.']);
  });

  it('a run killed between its steps resumes with its thinking intact, and the API accepts the resumed tool loop', async () => {
    h.fake.script(
      { thinking: 'First I echo, slowly.', toolCalls: [{ name: 'slow', input: { ms: 3000 } }] },
      { thinking: 'Done waiting; answer.', text: 'Finished.' },
    );
    const child = () =>
      startChildServer(childConfig(h, 1000));
    const first = await child();
    // Killed while the step's tool runs: its assistant record (with the thinking) is durable, its result is not.
    const { sessionId } = await chatUntil(first.url, { agent_id: 'thinker', message: 'Wait, then answer.' }, (e) => e.type === 'tool_call');
    for (let i = 0; i < 100; i++) {
      const { json } = await getJson(`${first.url}/api/v2/sessions/${sessionId}`);
      if (json.history.some((r: { kind: string }) => r.kind === 'assistant')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await first.kill();
    const second = await child();
    try {
      const controller = new AbortController();
      const response = await fetch(`${second.url}/api/v2/sessions/${sessionId}/events`, { headers: DEV, signal: controller.signal });
      const events: ReceivedEvent[] = [];
      for await (const event of readSse(response)) {
        events.push(event);
        if (event.type === 'done') break;
      }
      controller.abort();
      expect(events.find((e) => e.type === 'start' && e.resumed)).toBeTruthy();
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      expect(h.fake.requests.at(-1)!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      expect(h.fake.thinkingRefusals).toEqual([]);
      const resent = (h.fake.requests.at(-1)!.body.messages.at(-2)!.content as Block[])[0]!;
      expect(resent).toMatchObject({ type: 'thinking', thinking: 'First I echo, slowly.', signature: expect.stringMatching(/^sig_/) });
    } finally {
      await second.kill();
    }
  });

  it("a message's own thinking setting wins over the agent's: a bigger budget, or none; a budget under the minimum is a 400 naming the field", async () => {
    h.fake.script({ thinking: 'Thinking harder.', text: 'One.' });
    await chatStream(h.url, { agent_id: 'thinker', message: 'Think hard.', thinking: { budget_tokens: 8192 } });
    expect(h.fake.requests.at(-1)!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(h.fake.requests.at(-1)!.body.max_tokens).toBe(8192 + 8192);
    h.fake.script({ thinking: 'never asked for', text: 'Two.' });
    const { events } = await chatStream(h.url, { agent_id: 'thinker', message: 'Answer at once.', thinking: false });
    expect(h.fake.requests.at(-1)!.body.thinking).toBeUndefined();
    expect(events.some((e) => e.type === 'thinking')).toBe(false);
    const before = h.fake.requests.length;
    const refused = await fetch(`${h.url}/api/v2/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...DEV }, body: JSON.stringify({ agent_id: 'thinker', message: 'x', thinking: { budget_tokens: 100 } }) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { field: string; message: string } }).error).toMatchObject({ field: 'thinking.budget_tokens', message: expect.stringMatching(/at least 1024/) });
    expect(h.fake.requests.length).toBe(before);
  });
});

describe('a deployment that keeps thinking from viewers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ hideThinkingFromViewers: true });
  });
  afterAll(() => h.close());

  it("shows a viewer the answer without the thinking, in the history and the live events, and the session's editors all of it", async () => {
    h.fake.script({ thinking: 'Private reasoning about the user.', text: 'The answer.' });
    const { events } = await chatStream(h.url, { agent_id: 'thinker', message: 'Answer.' });
    const id = (events.find((e) => e.type === 'start') as { session_id: string }).session_id;
    expect(events.some((e) => e.type === 'thinking')).toBe(true);
    for (const [user, role] of [['vera', 'viewer'], ['eddie', 'editor']] as const) {
      const put = await fetch(`${h.url}/api/v2/sessions/${id}/members/${user}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...DEV }, body: JSON.stringify({ role }) });
      expect(put.status).toBe(201);
    }
    const seenBy = async (headers: Record<string, string>) => {
      const history = (await getJson(`${h.url}/api/v2/sessions/${id}`, headers)).json.history as { kind: string; content?: { type: string }[] }[];
      const controller = new AbortController();
      const response = await fetch(`${h.url}/api/v2/sessions/${id}/events?after=0`, { headers, signal: controller.signal });
      const live: ReceivedEvent[] = [];
      for await (const event of readSse(response)) {
        live.push(event);
        if (event.type === 'done') break;
      }
      controller.abort();
      return { blocks: history.find((r) => r.kind === 'assistant')!.content!.map((b) => b.type), thinking: live.filter((e) => e.type === 'thinking').length, text: live.some((e) => e.type === 'text') };
    };
    expect(await seenBy(await h.userHeaders('vera'))).toEqual({ blocks: ['text'], thinking: 0, text: true });
    expect(await seenBy(await h.userHeaders('eddie'))).toMatchObject({ blocks: ['thinking', 'text'], text: true });
    expect((await seenBy(await h.userHeaders('eddie'))).thinking).toBeGreaterThan(0);
  });
});
