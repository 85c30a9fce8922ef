import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type * as z from 'zod';
import { MAX_BODY_BYTES } from '@zero/agent/wire';
import { ZeroError, invalidRequest } from '@zero/agent/errors';

/**
 * Routes are declared as a list of middleware: what they take (`json`, `query`,
 * `param`, `body`), what they answer (`describe`), then the handler. Each
 * declaration carries its schema, so the OpenAPI document is read off the
 * app's routes and cannot drift from what the server checks.
 */
export const ROUTE_SPEC = Symbol.for('zero.route-spec');

/** What a route answers, for the OpenAPI document. */
export interface Operation {
  summary: string;
  /** Status → the JSON body's schema; null for an answer without a body. */
  responses: Record<number, z.ZodType | null>;
  /** A Server-Sent Events answer (200): the schema of each `data:` line. */
  events?: z.ZodType;
  /** An answer that is not JSON (a file), by media type. */
  raw?: string;
  /** Authenticated otherwise than by a bearer credential (a webhook's signature), or not at all. */
  public?: boolean;
}

export type RouteSpec =
  | { kind: 'json'; schema: z.ZodType; maxBytes: number; optional?: boolean }
  | { kind: 'body'; mediaType: string; maxBytes: number }
  | { kind: 'query' | 'param'; schema: z.ZodType }
  | ({ kind: 'describe' } & Operation);

// Declarations read nothing of the app's variables, so they fit any app's environment.
type AnyEnv = any;
type Declared<I extends object> = MiddlewareHandler<AnyEnv, string, I> & { [ROUTE_SPEC]: RouteSpec };

const declared = <I extends object>(spec: RouteSpec, middleware: MiddlewareHandler<AnyEnv, string, I>): Declared<I> =>
  Object.assign(middleware, { [ROUTE_SPEC]: spec });

/** The spec a route's handler was declared with, if it is a declaration. */
export const specOf = (handler: unknown): RouteSpec | undefined => (handler as { [ROUTE_SPEC]?: RouteSpec } | null)?.[ROUTE_SPEC];

/** What a route answers; no effect on the request. */
export const describe = (operation: Operation) => declared({ kind: 'describe', ...operation }, async (_c, next) => next());

/**
 * The body-size guard: a body over `maxBytes` is refused with 413 before it is
 * read to the end (and the connection is closed, see errors.ts).
 */
export function sizeGuard(maxBytes: number, hint = ''): MiddlewareHandler<AnyEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ZeroError('payload_too_large', `request body over ${maxBytes} bytes${hint}`);
    },
  });
}

export interface JsonOptions {
  /** The body-size limit; `MAX_BODY_BYTES` unless said. */
  maxBytes?: number;
  /** Said in the 413's message, e.g. how to send less. */
  hint?: string;
  /** Runs on the raw JSON before the schema: limits that answer 413 rather than the schema's 400. */
  guard?: (body: unknown) => void;
  /** An empty body reads as `{}`: every field of the schema is optional. */
  optional?: boolean;
}

/** A JSON body, size-guarded and parsed with `schema`: 400 naming the field otherwise. Read it with `c.req.valid('json')`. */
export function json<S extends z.ZodType>(schema: S, options: JsonOptions = {}) {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const guard = sizeGuard(maxBytes, options.hint);
  return declared<{ in: { json: z.input<S> }; out: { json: z.output<S> } }>({ kind: 'json', schema, maxBytes, optional: options.optional }, (c, next) =>
    guard(c, async () => {
      const body = await readJson(c, options.optional);
      options.guard?.(body);
      c.req.addValidatedData('json', parse(schema, body) as object);
      await next();
    }),
  );
}

/** A body that is not JSON (a file, an archive): only size-guarded; the handler reads it. */
export const body = (mediaType: string, maxBytes: number) => declared({ kind: 'body', mediaType, maxBytes }, sizeGuard(maxBytes));

/** Query parameters parsed with `schema`; read them with `c.req.valid('query')`. */
export const query = <S extends z.ZodType>(schema: S) =>
  declared<{ in: { query: z.input<S> }; out: { query: z.output<S> } }>({ kind: 'query', schema }, async (c, next) => {
    c.req.addValidatedData('query', parse(schema, c.req.query()) as object);
    await next();
  });

/** Path parameters parsed with `schema` (ids end up in DynamoDB keys, which are bounded); read them with `c.req.valid('param')`. */
export const param = <S extends z.ZodType>(schema: S) =>
  declared<{ in: { param: z.input<S> }; out: { param: z.output<S> } }>({ kind: 'param', schema }, async (c, next) => {
    c.req.addValidatedData('param', parse(schema, c.req.param()) as object);
    await next();
  });

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

async function readJson(c: Context, optional = false): Promise<unknown> {
  const text = await c.req.text();
  if (optional && text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ZeroError('invalid_json', 'request body is not valid JSON', { field: 'body' });
  }
}
