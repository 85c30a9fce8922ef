import { createHash } from 'node:crypto';
import { unauthorized } from '@zero/agent/errors';
import type { LoadBudgets } from '../budgets/limits';
import type { LoadRateLimiter } from '../rate-limits/limits';
import type { AuthUser, Authenticator } from './authenticator';
import { refuseIfSuspended } from './suspensions';

/** What every door needs to admit a caller. */
export interface DoorDeps {
  auth: Authenticator;
  budgets?: LoadBudgets;
  rateLimits?: LoadRateLimiter;
}

/** A caller a door let in. */
export interface AdmittedCaller {
  user: AuthUser;
  /** What the per-credential rate limit counts: an API key by a digest (never the key), a JWT user by id. */
  credential: string;
}

/**
 * The one check of a request's caller at every door (`/api/v2` and its UI routes, `/v1`, `/mcp`):
 * the credential verified (401), a suspended user refused (403 `user_suspended`), and the request
 * counted against its credential's rate limit (429 `rate_limited`, shared by all doors). A door
 * reads the token its own way and hands it here, so no door answers a caller another refuses.
 */
export async function admitCaller(deps: DoorDeps, token: string): Promise<AdmittedCaller> {
  const checked = await deps.auth.check(token);
  if (!('user' in checked)) throw unauthorized(checked.reason);
  const { user } = checked;
  await refuseIfSuspended(deps.budgets, user.id);
  // An API key is its own credential; a JWT user's tokens are one credential.
  const credential = user.via === 'jwt' ? `user:${user.id}` : `key:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;
  const limiter = await deps.rateLimits?.();
  // The deployment's limit for all callers together, then the credential's own.
  await limiter?.take('deployment', 'all');
  await limiter?.take('credential', credential);
  return { user, credential };
}
