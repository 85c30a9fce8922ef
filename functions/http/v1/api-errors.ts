import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ZeroError } from '@zero/agent/errors';
import { errorText, log } from '@zero/agent/log/log';
import { redact } from '@zero/agent/log/redact';

/** The Anthropic API's error `type` for each status the API answers. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** An error answered in the API's shape, `{"type":"error","error":{"type":…,"message":…}}`, with Zero's status codes. */
export function apiErrorResponse(error: unknown, c: Context, secrets: readonly string[] = []) {
  let status = 500;
  let message = 'internal error';
  if (ZeroError.isInstance(error)) {
    status = error.status;
    message = error.message;
  } else if (error instanceof HTTPException) {
    status = error.status;
    message = error.message || 'request refused';
  } else {
    log.error('unhandled error', { error: redact(errorText(error), secrets) });
  }
  if (status === 413) c.header('connection', 'close');
  return c.json({ type: 'error', error: { type: errorType(status), message }, request_id: null }, status as 400);
}
