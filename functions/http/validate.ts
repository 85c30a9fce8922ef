import type { Context } from 'hono';
import type { z } from 'zod';
import { ZeroError, invalidField, invalidRequest } from '@zero/core';

/** Reads a JSON body and parses it with a zod schema: 400 naming the field otherwise. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const body = await readJson(c);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ZeroError('invalid_json', 'request body is not valid JSON', { field: 'body' });
  }
}

/** Parses query parameters with a zod schema. */
export function query<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

/** Parses one path parameter with a zod schema: 400 naming it otherwise (ids end up in DynamoDB keys, which are bounded). */
export function param<S extends z.ZodType>(c: Context, name: string, schema: S): z.output<S> {
  const parsed = schema.safeParse(c.req.param(name));
  if (!parsed.success) throw invalidField(name, parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}
