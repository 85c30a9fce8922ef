import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { flushTraces, useTracerProvider } from '@zero/agent/telemetry/traces';
import { send, startHarness, type Harness } from './support/harness';

/** A span and its children, by name, in the order they started. */
interface Tree {
  name: string;
  children: Tree[];
}
function treeOf(spans: ReadableSpan[], parent?: string): Tree[] {
  return spans
    .filter((s) => s.parentSpanContext?.spanId === parent)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    .map((s) => ({ name: s.name, children: treeOf(spans, s.spanContext().spanId) }));
}

describe('OpenTelemetry traces', () => {
  let h: Harness;
  let alice: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.userHeaders('alice');
  });
  afterAll(() => h.close());
  afterEach(async () => {
    h.fake.reset();
    await useTracerProvider(undefined);
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  });

  const chatWithOneToolCall = () => {
    h.fake.script(
      { toolCalls: [{ name: 'echo', input: { text: 'ping' } }], usage: { input_tokens: 1000, output_tokens: 20 } },
      { text: 'pong', usage: { input_tokens: 1100, output_tokens: 7 } },
    );
    return send(h, 'POST', '/chat', alice, { agent_id: 'tester', message: 'echo ping' });
  };

  it('makes a span tree of request → run → step → model call and tool call, with GenAI attribute names', async () => {
    const exporter = new InMemorySpanExporter();
    await useTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const chat = await chatWithOneToolCall();
    expect(chat.json.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const model = spans.find((s) => s.name.startsWith('chat '))!.attributes['gen_ai.request.model'];
    expect(typeof model).toBe('string');

    expect(treeOf(spans)).toEqual([
      {
        name: 'POST /api/v2/chat',
        children: [
          {
            name: 'invoke_agent tester',
            children: [
              { name: 'step 1', children: [{ name: `chat ${model}`, children: [] }, { name: 'execute_tool echo', children: [] }] },
              { name: 'step 2', children: [{ name: `chat ${model}`, children: [] }] },
            ],
          },
        ],
      },
    ]);
    const named = (name: string) => spans.filter((s) => s.name === name);
    expect(named('POST /api/v2/chat')[0]!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/v2/chat', 'http.response.status_code': 200, 'enduser.id': 'alice' });
    expect(named('invoke_agent tester')[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'tester',
      'zero.session.id': chat.json.session_id,
      'zero.run.status': 'completed',
      'zero.run.steps': 2,
      'gen_ai.usage.input_tokens': 2100,
      'gen_ai.usage.output_tokens': 27,
    });
    expect(named(`chat ${model}`).map((s) => s.attributes)).toMatchObject([
      { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 20, 'gen_ai.response.finish_reasons': ['tool_use'] },
      { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1100, 'gen_ai.usage.output_tokens': 7, 'gen_ai.response.finish_reasons': ['end_turn'] },
    ]);
    const tool = named('execute_tool echo')[0]!;
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo' });
    expect(tool.attributes['gen_ai.tool.call.id']).toMatch(/\S/);
    // What the model and the tool were given stays out of the spans.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('ping');
  });

  it("nests a delegate's run under the tool call that started it", async () => {
    const exporter = new InMemorySpanExporter();
    await useTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const usage = { input_tokens: 100, output_tokens: 10 };
    h.fake.script(
      { toolCalls: [{ name: 'delegate_agent', input: { agent_id: 'cereal', task: 'Which dependencies are vulnerable?' } }], usage },
      { text: 'lodash 4.17.20.', usage },
      { text: 'Cereal found lodash 4.17.20.', usage },
    );
    expect((await send(h, 'POST', '/chat', alice, { agent_id: 'zero', message: 'Is acme/web safe?' })).json.status).toBe('completed');
    const names = (trees: Tree[]): unknown[] => trees.map((t) => (t.children.length ? { [t.name]: names(t.children) } : t.name));
    expect(names(treeOf(exporter.getFinishedSpans()))).toEqual([
      {
        'POST /api/v2/chat': [
          {
            'invoke_agent zero': [
              { 'step 1': [expect.stringMatching(/^chat /), { 'execute_tool delegate_agent': [{ 'invoke_agent cereal': [{ 'step 1': [expect.stringMatching(/^chat /)] }] }] }] },
              { 'step 2': [expect.stringMatching(/^chat /)] },
            ],
          },
        ],
      },
    ]);
  });

  it('makes no span when tracing is off', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    await useTracerProvider(provider);
    await useTracerProvider(undefined);
    expect((await chatWithOneToolCall()).json.status).toBe('completed');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('sends the spans as OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const posts: { path: string; body: string }[] = [];
    const collector: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        posts.push({ path: req.url!, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      expect((await chatWithOneToolCall()).json.status).toBe('completed');
      await flushTraces();
      expect(posts.map((p) => p.path)).toContain('/v1/traces');
      const sent = posts.map((p) => p.body).join('\n');
      for (const name of ['POST /api/v2/chat', 'invoke_agent tester', 'step 1', 'execute_tool echo']) expect(sent).toContain(name);
    } finally {
      collector.close();
    }
  });
});
