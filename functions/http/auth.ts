import type { MiddlewareHandler } from 'hono';
import { admitCaller, type DoorDeps } from '@zero/runtime/auth/admit-caller';
import { unauthorized } from '@zero/agent/errors';
import type { Env } from './env';

/**
 * Where `?access_token=` stands in for the header: GET streams a browser
 * opens with `EventSource` (the live view) or may resume without its own
 * headers (`useChat`'s stream resume). Anywhere else a credential in the URL
 * would end up in logs and histories for nothing, so it is refused.
 */
const QUERY_TOKEN_ROUTES = [/^\/api\/v2\/sessions\/[^/]+\/events$/, /^\/api\/v2\/ui\/chat\/[^/]+\/stream$/];

const acceptsQueryToken = (method: string, path: string) => method === 'GET' && QUERY_TOKEN_ROUTES.some((route) => route.test(path));

/**
 * Requires a bearer credential (API key or JWT) in the header, or in `?access_token=` on the streams
 * above, and admits its caller as every door does (`admitCaller`: suspension, rate limit).
 */
export function requireUser(deps: DoorDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const inQuery = c.req.query('access_token');
    if (!bearer && inQuery !== undefined && !acceptsQueryToken(c.req.method, c.req.path)) {
      throw unauthorized('?access_token= is accepted only by GET /sessions/:id/events and GET /ui/chat/:id/stream; send "Authorization: Bearer <API key or JWT>"', 'access_token');
    }
    const token = bearer ?? inQuery;
    if (!token) throw unauthorized('a bearer credential is required: send "Authorization: Bearer <API key or JWT>"');
    const { user, credential } = await admitCaller(deps, token);
    c.set('user', user);
    c.set('credential', credential);
    await next();
  };
}
