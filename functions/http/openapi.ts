import type { RouterRoute } from 'hono/types';
import * as z from 'zod';
import { errorResponseSchema } from '@zero/agent/wire';
import { specOf, type Operation, type RouteSpec } from './declare';

type JsonSchema = Record<string, unknown>;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * Every exported schema of the wire, by its component name (`sessionDetailSchema`
 * → `SessionDetail`); requests are described as clients send them, everything
 * else as the server sends it.
 */
function wireComponents(wire: Record<string, unknown>) {
  const requests = z.registry<{ id: string }>();
  const responses = z.registry<{ id: string }>();
  for (const [name, value] of Object.entries(wire)) {
    if (!(value instanceof z.ZodType) || !name.endsWith('Schema')) continue;
    const id = name[0]!.toUpperCase() + name.slice(1, -'Schema'.length);
    (name.endsWith('RequestSchema') || name === 'hookInputSchema' ? requests : responses).add(value, { id });
  }
  const convert = (registry: typeof requests, io: 'input' | 'output') =>
    z.toJSONSchema(registry, { io, uri: ref, unrepresentable: 'any' }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = { ...convert(responses, 'output'), ...convert(requests, 'input') };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  const nameOf = new Map<z.ZodType, string>();
  for (const registry of [requests, responses]) {
    for (const [name, value] of Object.entries(wire)) {
      if (value instanceof z.ZodType && registry.has(value)) nameOf.set(value, registry.get(value)!.id);
    }
  }
  return { schemas, nameOf };
}

/**
 * The OpenAPI 3.1 document of an app whose routes are declared with
 * `json`/`query`/`param`/`body`/`describe` (declare.ts): every route the app
 * serves, its parameters, body and answers, read off `app.routes` (an app's, or `lazyRouteTable`'s
 * with its lazy groups loaded).
 */
export async function openApiDocument(app: { routes: readonly RouterRoute[] }, info: { title: string; version: string }) {
  // The whole wire, by name, imported here and not statically: a static `import * as` of the barrel would make every
  // wire module part of the cold start's chunks (esbuild keeps all of a namespace-imported barrel beside its other users).
  const { schemas, nameOf } = wireComponents(await import('@zero/agent/wire'));
  const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const name = nameOf.get(schema);
    if (name) return { $ref: ref(name) };
    const { $schema: _, ...inline } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    return inline;
  };

  const routes = new Map<string, { method: Method; path: string; specs: RouteSpec[] }>();
  for (const route of app.routes) {
    if (!METHODS.has(route.method)) continue;
    const key = `${route.method} ${route.path}`;
    const entry = routes.get(key) ?? { method: route.method.toLowerCase() as Method, path: route.path, specs: [] };
    const spec = specOf(route.handler);
    if (spec) entry.specs.push(spec);
    routes.set(key, entry);
  }

  const paths: Record<string, Partial<Record<Method, unknown>>> = {};
  for (const { method, path, specs } of routes.values()) {
    const described = specs.find((s): s is Extract<RouteSpec, { kind: 'describe' }> => s.kind === 'describe');
    const declaredParams = specs.find((s) => s.kind === 'param');
    const declaredQuery = specs.find((s) => s.kind === 'query');
    const bodySpec = specs.find((s) => s.kind === 'json' || s.kind === 'body');
    const names = [...path.matchAll(/:(\w+)|\/\*$/g)].map((m) => m[1] ?? 'path');
    const parameters = [
      ...names.map((name) => ({ name, in: 'path', required: true, schema: propertyOf(declaredParams, name) ?? { type: 'string' } })),
      ...Object.entries(propertiesOf(declaredQuery)).map(([name, { schema, required }]) => ({ name, in: 'query', required, schema })),
    ];
    const openApiPath = path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');
    const operation: Record<string, unknown> = {
      operationId: `${method} ${path}`,
      summary: described?.summary ?? `${method.toUpperCase()} ${openApiPath}`,
      ...(parameters.length ? { parameters } : {}),
      ...(bodySpec?.kind === 'json' ? { requestBody: { required: !bodySpec.optional, content: { 'application/json': { schema: schemaOf(bodySpec.schema, 'input') } } } } : {}),
      ...(bodySpec?.kind === 'body' ? { requestBody: { required: true, content: { [bodySpec.mediaType]: { schema: {} } } } } : {}),
      responses: responsesOf(described, (schema) => schemaOf(schema, 'output')),
      ...(described?.public ? { security: [] } : {}),
    };
    (paths[openApiPath] ??= {})[method] = operation;
  }

  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (zk_…) or a JWT' } },
    },
    security: [{ bearer: [] }],
  };
}

function responsesOf(operation: Operation | undefined, schemaOf: (schema: z.ZodType) => JsonSchema) {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(operation?.responses ?? {})) {
    responses[status] = schema
      ? { description: `${status}`, content: { 'application/json': { schema: schemaOf(schema) } } }
      : { description: `${status}, no body` };
  }
  const answers200 = (mediaType: string, schema: JsonSchema, description: string) => {
    const ok = (responses['200'] ??= { description, content: {} }) as { description: string; content?: Record<string, unknown> };
    ok.content = { ...ok.content, [mediaType]: { schema } };
    if (description !== ok.description) ok.description = `${ok.description}; or ${description}`;
  };
  if (operation?.events) {
    answers200('text/event-stream', schemaOf(operation.events), 'Server-Sent Events: each `data:` line is one JSON object of this schema; each `id:` a position to resume from (`Last-Event-ID`)');
  }
  if (operation?.raw) answers200(operation.raw, {}, 'the stored bytes');
  responses.default = { description: 'a refusal: a stable code, a message and the field at fault', content: { 'application/json': { schema: schemaOf(errorResponseSchema) } } };
  return responses;
}

/** The properties of an object schema, each as JSON Schema with whether it is required. */
function propertiesOf(spec: RouteSpec | undefined): Record<string, { schema: JsonSchema; required: boolean }> {
  if (!spec || !('schema' in spec)) return {};
  const json = z.toJSONSchema(spec.schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.fromEntries(Object.entries(json.properties ?? {}).map(([name, schema]) => [name, { schema, required: json.required?.includes(name) ?? false }]));
}

const propertyOf = (spec: RouteSpec | undefined, name: string) => propertiesOf(spec)[name]?.schema;
