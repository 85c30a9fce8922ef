import type { MiddlewareHandler } from 'hono';
import { ZeroError, type Authenticator } from '@zero/core';
import type { Env } from './env';

/**
 * Requires a bearer credential (API key or JWT). `?access_token=` is accepted
 * too, for EventSource, which cannot send headers.
 */
export function requireUser(auth: Authenticator): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const token = bearer ?? c.req.query('access_token');
    if (!token) throw new ZeroError('unauthorized', 'a bearer credential is required: send "Authorization: Bearer <API key or JWT>"', 401);
    const user = await auth.verify(token);
    if (!user) throw new ZeroError('unauthorized', 'the credential is invalid, expired or revoked', 401);
    c.set('user', user);
    await next();
  };
}
