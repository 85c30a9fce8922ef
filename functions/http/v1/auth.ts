import type { MiddlewareHandler } from 'hono';
import { unauthorized, type Authenticator } from '@zero/core';
import type { Env } from '../env';

/**
 * The Managed Agents API's credentials: the key in `x-api-key`, as Anthropic's SDK sends it, or
 * `Authorization: Bearer`. The same keys and JWTs as `/api/v2`.
 */
export function requireApiKey(auth: Authenticator): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const token = c.req.header('x-api-key')?.trim() || (header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined);
    if (!token) throw unauthorized('an API key is required: send "x-api-key: <key>" (or "Authorization: Bearer <key>")');
    const checked = await auth.check(token);
    if (!('user' in checked)) throw unauthorized(checked.reason);
    c.set('user', checked.user);
    await next();
  };
}
