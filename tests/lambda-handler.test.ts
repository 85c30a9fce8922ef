import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import { FIRST_FLUSH_PADDING } from '../functions/http/app';
import { startServer, type RunningServer } from '../local/server';
import { startLocalStack, syncAgents, type LocalStack } from '../local/stack';
import { FakeAnthropic } from './support/fake-anthropic';
import { installAwsLambdaGlobal, serveFunctionUrl, type FunctionUrl } from './support/lambda-runtime';
import { chatStream, readSse, type ReceivedEvent } from './support/sse';
import { DEV, DEV_KEY } from './support/harness';

const root = join(import.meta.dirname, '..');
const LINKED_KEY = 'sk-ant-linked-secret-0123456789';

/**
 * What `sst deploy` gives the function: the links, encrypted into
 * `resource.enc` beside the handler (AES-256-GCM, zero nonce, tag appended),
 * the key in `SST_KEY`, and the app in `SST_RESOURCE_App`.
 */
async function writeSstLinks(dir: string, links: Record<string, unknown>) {
  const key = randomBytes(32);
  const cipher = createCipheriv('aes-256-gcm', key, Buffer.alloc(12, 0));
  const encrypted = Buffer.concat([cipher.update(JSON.stringify(links)), cipher.final(), cipher.getAuthTag()]);
  const file = join(dir, 'resource.enc');
  await writeFile(file, encrypted);
  return { SST_KEY: key.toString('base64'), SST_KEY_FILE: file, SST_RESOURCE_App: JSON.stringify({ name: 'zero', stage: 'test' }) };
}

/** The events without what differs between two runs (ids, run ids, session ids). */
function shape(events: ReceivedEvent[]) {
  return events.map(({ event_id: _id, ...event }) => {
    const e = { ...event } as Record<string, unknown>;
    for (const key of ['run_id', 'session_id', 'id']) if (key in e) e[key] = typeof e[key];
    return e;
  });
}

describe('the API function invoked as Lambda invokes a streaming handler', () => {
  let fake: FakeAnthropic;
  let stack: LocalStack;
  let dir: string;
  let lambda: FunctionUrl;
  let node: RunningServer;
  let handler: unknown;

  beforeAll(async () => {
    fake = await new FakeAnthropic().start();
    // Named as SST names them, so only the links can have told the function.
    stack = await startLocalStack({ table: 'zero-test-TableTable-hzkmwnaa', bucket: 'zero-test-storagebucket-rwzkxsmd' });
    await syncAgents(stack.store, join(root, 'agents'));
    await syncAgents(stack.store, join(root, 'tests', 'fixtures', 'agents'));
    dir = await mkdtemp(join(tmpdir(), 'zero-lambda-'));

    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'zero-test-ApiFunction-kdxwmzpe',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: stack.store.credentials!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: stack.store.credentials!.secretAccessKey,
      AWS_SESSION_TOKEN: 'session-token',
      ZERO_DYNAMODB_ENDPOINT: stack.store.dynamoEndpoint,
      ZERO_S3_ENDPOINT: stack.store.s3Endpoint,
      ANTHROPIC_BASE_URL: fake.url,
      // The bootstrap administrator key, as a deployment would set it.
      ZERO_ADMIN_KEY: DEV_KEY,
      // A step is not started with less than a second left of the invocation.
      ZERO_HANDOVER_RESERVE_MS: '1000',
      // No title call after a session's first exchange: the fake model's scripts answer the runs' own calls.
      ZERO_SESSION_TITLES: 'off',
      ...(await writeSstLinks(dir, {
        ZeroTable: { name: stack.store.table, type: 'sst.sst.Linkable' },
        ZeroBucket: { name: stack.store.bucket, type: 'sst.sst.Linkable' },
        AnthropicApiKey: { value: LINKED_KEY, type: 'sst.sst.Secret' },
      })),
    });
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ZERO_TABLE;
    delete process.env.ZERO_BUCKET;

    // The runtime provides `awslambda` before it loads the handler module.
    installAwsLambdaGlobal();
    handler = (await import('../functions/api')).handler;
    lambda = await serveFunctionUrl(handler);
    node = await startServer({
      store: stack.store,
      anthropic: { apiKey: LINKED_KEY, baseURL: fake.url },
      limits: DEFAULT_LIMITS,
      auth: { staticKeys: [{ key: DEV_KEY, user: { id: 'admin', name: 'Administrator' } }] },
      sessionTitles: false,
    });
  });

  afterAll(async () => {
    await lambda?.close();
    await node?.close();
    await fake?.stop();
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => fake.reset());

  it('streams the same SSE events as the Node server, to stores and a key named by the SST links', async () => {
    const turns = () => [
      { text: 'Let me look. ', toolCalls: [{ name: 'get_agent_info', input: {} }] },
      { text: 'Cereal reviews code.' },
    ];
    fake.script(...turns());
    const viaLambda = await chatStream(lambda.url, { agent_id: 'zero', message: 'Who can you hand work to?' });
    fake.script(...turns());
    const viaNode = await chatStream(node.url, { agent_id: 'zero', message: 'Who can you hand work to?' });

    expect(viaLambda.response.status).toBe(200);
    expect(viaLambda.response.headers.get('content-type')).toBe(viaNode.response.headers.get('content-type'));
    expect(viaLambda.response.headers.get('content-type')).toContain('text/event-stream');
    expect(shape(viaLambda.events)).toEqual(shape(viaNode.events));
    expect(viaLambda.events.map((e) => e.type)).toContain('tool_result');
    expect(viaLambda.events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    expect(viaLambda.events.every((e) => typeof e.event_id === 'string')).toBe(true);

    // The function read the key from the linked secret.
    const sent = fake.requests[0]!.headers;
    expect(sent['x-api-key'] ?? sent.authorization).toContain(LINKED_KEY);

    // The event was a function URL's payload v2, and the session is in the linked table.
    const invocation = lambda.invocations.at(-1)!;
    expect(invocation.event).toMatchObject({ version: '2.0', routeKey: '$default', rawPath: '/api/v2/chat', isBase64Encoded: false });
    const sessionId = (viaLambda.events[0] as { session_id: string }).session_id;
    const stored = await (await fetch(`${node.url}/api/v2/sessions/${sessionId}`, { headers: DEV })).json();
    expect(stored.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
  });

  it('writes a padding comment first, before the model is even asked, so the function URL flushes at once', async () => {
    fake.script({ text: 'Hello there.' });
    const { events } = await chatStream(lambda.url, { agent_id: 'tester', message: 'hi' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    const writes = lambda.invocations.at(-1)!.writes;
    const first = writes[0]!.bytes.toString('utf8');
    expect(first).toBe(FIRST_FLUSH_PADDING);
    expect(first.startsWith(':')).toBe(true);
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(16 * 1024);
    // The padding was on its way to the client before the model request arrived.
    expect(writes[0]!.at).toBeLessThan(fake.requests[0]!.at);
    expect(writes[1]!.bytes.toString('utf8')).toContain('"type":"start"');
  });

  it('answers plain JSON routes and errors through the same response stream', async () => {
    const health = await fetch(`${lambda.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });

    const agents = await (await fetch(`${lambda.url}/api/v2/agents`, { headers: DEV })).json();
    expect(agents.agents.map((a: { id: string }) => a.id)).toContain('zero');

    const bad = await fetch(`${lambda.url}/api/v2/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...DEV }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('invalid_json');

    const missing = await fetch(`${lambda.url}/api/v2/sessions/00000000-0000-4000-8000-000000000000`, { headers: DEV });
    const anonymous = await fetch(`${lambda.url}/api/v2/agents`);
    expect(anonymous.status).toBe(401);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('session_not_found');
  });

  it('a run near the time limit in the Lambda context hands over, and the background queue carries it on', async () => {
    const short = await serveFunctionUrl(handler, { timeoutMs: 1800 });
    try {
      // The first step takes about a second of the invocation's 1.8 s; the second may not start with less than 1 s left.
      fake.script(
        { text: Array.from({ length: 10 }, () => 'working '), deltaDelayMs: 100, toolCalls: [{ name: 'get_agent_info', input: { agent_id: 'cereal' } }] },
        { text: 'Finished in the background.' },
      );
      const { events } = await chatStream(short.url, { agent_id: 'tester', message: 'a long investigation' });
      const handover = events.at(-1)!;
      expect(handover).toMatchObject({ type: 'handover', reason: expect.stringContaining('time limit') });
      expect(events.some((e) => e.type === 'done')).toBe(false);
      const sessionId = (events[0] as { session_id: string }).session_id;

      // The client follows the session's events from the handover event's id.
      const controller = new AbortController();
      const response = await fetch(`${lambda.url}/api/v2/sessions/${sessionId}/events?after=${handover.event_id}`, { headers: DEV, signal: controller.signal });
      const rest: ReceivedEvent[] = [];
      for await (const event of readSse(response)) {
        rest.push(event);
        if (event.type === 'done') break;
      }
      controller.abort();
      expect(rest[0]).toMatchObject({ type: 'start', resumed: true });
      expect(rest.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
      const text = rest.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('');
      expect(text).toBe('Finished in the background.');

      const stored = await (await fetch(`${node.url}/api/v2/sessions/${sessionId}`, { headers: DEV })).json();
      expect(stored.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'run_handover', 'assistant', 'run_end']);
    } finally {
      await short.close();
    }
  });

  it('a useChat run (POST /ui/chat) near the time limit in the Lambda context hands over too, and the background queue carries it on', async () => {
    const short = await serveFunctionUrl(handler, { timeoutMs: 1800 });
    try {
      fake.script(
        { text: Array.from({ length: 10 }, () => 'working '), deltaDelayMs: 100, toolCalls: [{ name: 'get_agent_info', input: { agent_id: 'cereal' } }] },
        { text: 'Finished in the background.' },
      );
      const chatId = `chat-${randomBytes(8).toString('hex')}`;
      const response = await fetch(`${short.url}/api/v2/ui/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...DEV },
        body: JSON.stringify({ id: chatId, trigger: 'submit-message', agent_id: 'tester', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'a long investigation' }] }] }),
      });
      expect(response.status).toBe(200);
      const chunks: { type: string; data?: unknown; finishReason?: string }[] = [];
      const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        if (next.value.data !== '[DONE]') chunks.push(JSON.parse(next.value.data));
      }
      expect(chunks.find((c) => c.type === 'data-handover')).toMatchObject({ data: { session_id: chatId, reason: expect.stringContaining('time limit') } });
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'other' });
      expect(chunks.some((c) => c.type === 'data-usage')).toBe(false);

      // The run goes on in the background and completes.
      const controller = new AbortController();
      const events = await fetch(`${lambda.url}/api/v2/sessions/${chatId}/events`, { headers: DEV, signal: controller.signal });
      let done: ReceivedEvent | undefined;
      for await (const event of readSse(events)) {
        if (event.type === 'done') {
          done = event;
          break;
        }
      }
      controller.abort();
      expect(done).toMatchObject({ status: 'completed', steps: 2 });
      const stored = await (await fetch(`${node.url}/api/v2/sessions/${chatId}`, { headers: DEV })).json();
      expect(stored.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'run_handover', 'assistant', 'run_end']);
    } finally {
      await short.close();
    }
  });

  it('a model call still going at the invocation deadline is cut short of it: the run hands over and the step is redone in the background', async () => {
    const short = await serveFunctionUrl(handler, { timeoutMs: 1800 });
    try {
      // The first model call would take 5 s of the invocation's 1.8 s.
      fake.script({ text: Array.from({ length: 50 }, () => 'slow '), deltaDelayMs: 100 }, { text: 'Redone in the background.' });
      const started = performance.now();
      const { events } = await chatStream(short.url, { agent_id: 'tester', message: 'a slow answer' });
      const took = performance.now() - started;
      expect(events.at(-2)).toMatchObject({ type: 'retry', step: 1, reason: expect.stringContaining('time limit of this process') });
      expect(events.at(-1)).toMatchObject({ type: 'handover' });
      expect(took).toBeLessThan(1800);
      const sessionId = (events[0] as { session_id: string }).session_id;

      const controller = new AbortController();
      const response = await fetch(`${lambda.url}/api/v2/sessions/${sessionId}/events?after=${events.at(-1)!.event_id}`, { headers: DEV, signal: controller.signal });
      const rest: ReceivedEvent[] = [];
      for await (const event of readSse(response)) {
        rest.push(event);
        if (event.type === 'done') break;
      }
      controller.abort();
      expect(rest.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 1 });
      expect(rest.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('Redone in the background.');
    } finally {
      await short.close();
    }
  });
});
