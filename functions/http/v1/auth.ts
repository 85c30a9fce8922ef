import type { MiddlewareHandler } from 'hono';
import { admitCaller, type DoorDeps } from '@zero/runtime/auth/admit-caller';
import { unauthorized } from '@zero/agent/errors';
import type { Env } from '../env';

/**
 * The Managed Agents API's credentials: the key in `x-api-key`, as Anthropic's SDK sends it, or
 * `Authorization: Bearer`. The same keys and JWTs as `/api/v2`, admitted by the same check
 * (`admitCaller`: a suspended user is refused, the credential's rate limit is shared with every door).
 */
export function requireApiKey(deps: DoorDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const token = c.req.header('x-api-key')?.trim() || (header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined);
    if (!token) throw unauthorized('an API key is required: send "x-api-key: <key>" (or "Authorization: Bearer <key>")');
    const { user, credential } = await admitCaller(deps, token);
    c.set('user', user);
    c.set('credential', credential);
    await next();
  };
}
