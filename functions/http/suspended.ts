import type { MiddlewareHandler } from 'hono';
import { ZeroError } from '@zero/core';
import type { AppDeps, Env } from './env';

/** How long an instance trusts what it read of a user's suspension: a suspension holds everywhere within this. */
export const SUSPENSION_CACHE_MS = 5_000;

/** What this instance last read of users' suspensions. */
const known = new Map<string, { suspended: boolean; until: number }>();

/** Forgets what this instance read of a user's suspension: the instance that suspends or resumes them knows at once. */
export function forgetSuspension(userId: string): void {
  known.delete(userId);
}

/** Refuses a suspended user's requests with 403 `user_suspended` (see POST /admin/users/:id/suspend). */
export function refuseSuspended(deps: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    const user = c.get('user');
    let entry = known.get(user.id);
    if (!entry || entry.until < Date.now()) {
      const suspension = await (await deps.budgets!()).operations.suspension(user.id);
      entry = { suspended: !!suspension, until: Date.now() + SUSPENSION_CACHE_MS };
      known.set(user.id, entry);
      if (known.size > 10_000) known.delete(known.keys().next().value!);
    }
    if (entry.suspended) throw new ZeroError('user_suspended', `user ${user.id} is suspended by an administrator; their requests are refused until resumed`);
    await next();
  };
}
