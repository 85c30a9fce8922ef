import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ZeroError } from '@zero/agent/errors';
import { errorText, log } from '@zero/agent/log/log';
import { redact } from '@zero/agent/log/redact';

/** Maps any error to a JSON body with a stable code; only a bug answers 500, and its details stay in the log. */
export function errorResponse(error: unknown, c: Context, secrets: readonly string[] = []) {
  if (ZeroError.isInstance(error)) {
    // The rest of an oversized body is not read; the client must not reuse this connection.
    if (error.status === 413) c.header('connection', 'close');
    if (error.status === 401) c.header('www-authenticate', 'Bearer');
    if (typeof error.details.retry_after_s === 'number') c.header('retry-after', String(error.details.retry_after_s));
    return c.json(error.toJSON(), error.status as 400);
  }
  if (error instanceof HTTPException) {
    const code = error.status === 413 ? 'payload_too_large' : error.status === 404 ? 'not_found' : 'invalid_request';
    return c.json({ error: { code, message: error.message || 'request refused' } }, error.status);
  }
  log.error('unhandled error', { error: redact(errorText(error), secrets) });
  return c.json({ error: { code: 'internal', message: 'internal error' } }, 500);
}
