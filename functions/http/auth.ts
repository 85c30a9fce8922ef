import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { unauthorized, type Authenticator } from '@zero/core';
import type { Env } from './env';

/**
 * Where `?access_token=` stands in for the header: GET streams a browser
 * opens with `EventSource` (the live view) or may resume without its own
 * headers (`useChat`'s stream resume). Anywhere else a credential in the URL
 * would end up in logs and histories for nothing, so it is refused.
 */
const QUERY_TOKEN_ROUTES = [/^\/api\/v2\/sessions\/[^/]+\/events$/, /^\/api\/v2\/ui\/chat\/[^/]+\/stream$/];

const acceptsQueryToken = (method: string, path: string) => method === 'GET' && QUERY_TOKEN_ROUTES.some((route) => route.test(path));

/** Requires a bearer credential (API key or JWT) in the header, or in `?access_token=` on the streams above. */
export function requireUser(auth: Authenticator): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const inQuery = c.req.query('access_token');
    if (!bearer && inQuery !== undefined && !acceptsQueryToken(c.req.method, c.req.path)) {
      throw unauthorized('?access_token= is accepted only by GET /sessions/:id/events and GET /ui/chat/:id/stream; send "Authorization: Bearer <API key or JWT>"', 'access_token');
    }
    const token = bearer ?? inQuery;
    if (!token) throw unauthorized('a bearer credential is required: send "Authorization: Bearer <API key or JWT>"');
    const checked = await auth.check(token);
    if (!('user' in checked)) throw unauthorized(checked.reason);
    c.set('user', checked.user);
    // An API key is its own credential (named by a digest, never by itself); a JWT user's tokens are one credential.
    c.set('credential', checked.user.via === 'jwt' ? `user:${checked.user.id}` : `key:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`);
    await next();
  };
}
