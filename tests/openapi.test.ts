import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentListSchema, chatResultSchema, sessionDetailSchema, sessionListSchema, streamEventSchema } from '@zero/agent/wire';
import { createApp } from '../functions/http/app';
import { lazyRouteTable } from '../functions/http/lazy-routes';
import { DEV, getJson, postJson, startHarness, type Harness } from './support/harness';

type Operation = { summary: string; parameters?: { name: string; in: string; required?: boolean }[]; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> };
type Document = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { anyOf?: unknown[]; oneOf?: unknown[] }> };
};

/** Every `$ref` anywhere in a JSON value. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') out.push(item);
      else refsIn(item, out);
    }
  }
  return out;
}

describe('the OpenAPI document at GET /api/v2/openapi.json', () => {
  let h: Harness;
  let doc: Document;
  beforeAll(async () => {
    h = await startHarness();
    const response = await fetch(`${h.url}/api/v2/openapi.json`);
    expect(response.status).toBe(200);
    doc = (await response.json()) as Document;
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('is OpenAPI 3.1 in shape, served without a credential, every reference resolving to a component', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Zero', version: expect.any(String) });
    expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(20);
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(20);
    const missing = refs.filter((ref) => !ref.startsWith('#/components/schemas/') || !(ref.slice('#/components/schemas/'.length) in doc.components.schemas));
    expect(missing).toEqual([]);
    for (const [path, methods] of Object.entries(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      for (const operation of Object.values(methods)) {
        expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
        // Every `{name}` of the path template is a required path parameter.
        const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path' && p.required).map((p) => p.name);
        expect(declared.sort()).toEqual(inPath.sort());
      }
    }
  });

  it('lists every route the app serves, with its method', async () => {
    const app = createApp(h.server.runtime);
    // The app's routes with its lazy groups' loaded in place of their stand-ins.
    const served = (await lazyRouteTable(app))
      .filter((r) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`);
    expect(served.length).toBeGreaterThan(30);
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect([...new Set(served)].sort()).toEqual(documented.sort());
    // …each declared with `describe`: a summary and at least one answer beside the refusals.
    const undeclared = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method, op]) => op.summary === `${method.toUpperCase()} ${path}` || Object.keys(op.responses).length < 2)
        .map(([method]) => `${method} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('documents the SSE endpoints with the event union, one schema per event type', () => {
    const sse = (path: string, method: string) => doc.paths[path]?.[method]?.responses['200']?.content?.['text/event-stream']?.schema;
    expect(sse('/api/v2/chat', 'post')).toEqual({ $ref: '#/components/schemas/StreamEvent' });
    expect(sse('/api/v2/sessions/{id}/events', 'get')).toEqual({ $ref: '#/components/schemas/StreamEvent' });
    expect(sse('/api/v2/ui/chat', 'post')).toEqual({ $ref: '#/components/schemas/UiMessageChunk' });
    const union = doc.components.schemas.StreamEvent!;
    const documentedTypes = (union.oneOf ?? union.anyOf ?? []).map((s) => (s as { properties: { type: { const: string } } }).properties.type.const);
    const eventTypes = streamEventSchema.options.map((o) => o.shape.type.value);
    expect(documentedTypes.sort()).toEqual([...eventTypes].sort());
    // `POST /chat` without `stream` answers JSON.
    expect(doc.paths['/api/v2/chat']!.post!.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ChatResult' });
  });

  it('documents that POST /chat takes a message or a plan (goal, context, steps)', () => {
    const chat = doc.components.schemas.ChatRequest as { properties: Record<string, { properties?: Record<string, unknown> }>; required?: string[] };
    expect(Object.keys(chat.properties)).toEqual(expect.arrayContaining(['message', 'plan']));
    expect(chat.required ?? []).not.toContain('message');
    expect(Object.keys(chat.properties.plan!.properties ?? {})).toEqual(expect.arrayContaining(['goal', 'context', 'steps']));
  });

  it('describes what the server really answers: a chat, the session, the lists', async () => {
    h.fake.script({ text: 'Hello there.' });
    const chat = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hi' });
    expect(chat.status).toBe(200);
    const result = chatResultSchema.parse(chat.json);
    expect(result).toMatchObject({ status: 'completed', text: 'Hello there.' });
    const detail = await getJson(`${h.url}/api/v2/sessions/${result.session_id}`, DEV);
    expect(sessionDetailSchema.parse(detail.json).history.map((r) => r.kind)).toEqual(['user_message', 'assistant', 'run_end']);
    expect(sessionListSchema.parse((await getJson(`${h.url}/api/v2/sessions`, DEV)).json).sessions.length).toBeGreaterThan(0);
    expect(agentListSchema.parse((await getJson(`${h.url}/api/v2/agents`, DEV)).json).agents.map((a) => a.id)).toContain('tester');
  });
});
