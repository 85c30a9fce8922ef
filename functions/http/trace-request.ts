import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { inSpan, tracingOn } from '@zero/agent/telemetry/traces';
import type { Env } from './env';

/**
 * A server span per request (when traces are on), the parent of the runs it starts. Named by the
 * route's pattern, never its path: ids and query strings (an `access_token` may ride there) stay out.
 */
export function traceRequests(): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (!(await tracingOn())) return next();
    await inSpan(
      `${c.req.method}`,
      { 'http.request.method': c.req.method },
      async (span) => {
        await next();
        span.rename(`${c.req.method} ${routePath(c)}`);
        span.set({ 'http.route': routePath(c), 'http.response.status_code': c.res.status, ...(c.get('user') ? { 'enduser.id': c.get('user')!.id } : {}) });
      },
      { kind: 'server' },
    );
  };
}
