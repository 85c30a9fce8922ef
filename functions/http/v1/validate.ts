import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type * as z from 'zod';
import { ZeroError, invalidRequest } from '@zero/agent/errors';
import { MAX_BODY_BYTES } from '@zero/agent/wire';

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

const limitOf = (maxBytes: number, hint = '') =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ZeroError('payload_too_large', `request body over ${maxBytes} bytes${hint}`);
    },
  });
const limit = limitOf(MAX_BODY_BYTES);

/**
 * A JSON body parsed with `schema` (400 naming the field), over `MAX_BODY_BYTES` (or `maxBytes`) a 413; read it
 * with `c.req.valid('json')`. The `/v1` routes are Anthropic's API, documented by Anthropic, so they
 * carry no OpenAPI declarations (functions/http/declare.ts).
 */
export const json = <S extends z.ZodType>(schema: S, options: { maxBytes?: number; hint?: string } = {}): MiddlewareHandler<any, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> => {
  const guard = options.maxBytes ? limitOf(options.maxBytes, options.hint) : limit;
  return (c, next) =>
  guard(c, async () => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      throw new ZeroError('invalid_json', 'request body is not valid JSON', { field: 'body' });
    }
    c.req.addValidatedData('json', parse(schema, body) as object);
    await next();
  });
};

/** Query parameters parsed with `schema`; read them with `c.req.valid('query')`. */
export const query = <S extends z.ZodType>(schema: S): MiddlewareHandler<any, string, { in: { query: z.input<S> }; out: { query: z.output<S> } }> => async (c, next) => {
  c.req.addValidatedData('query', parse(schema, c.req.query()) as object);
  await next();
};
