import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { log } from '@zero/agent/log/log';
import type { Env } from './env';

/**
 * One log line per request: method, route (its pattern: ids and query strings, where an
 * `access_token` may ride, stay out), status, duration to the response's head, and who and
 * which session and run it concerned. Never a header or a body.
 */
export function requestLog(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const sessionId = c.get('sessionId') ?? c.req.param('id');
    log.info('request', {
      method: c.req.method,
      route: routePath(c),
      status: c.res.status,
      duration_ms: Math.round(performance.now() - started),
      user_id: c.get('user')?.id,
      session_id: sessionId,
      run_id: c.get('runId'),
    });
  };
}
