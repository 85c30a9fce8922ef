import { ZeroError } from '@zero/agent/errors';
import type { LoadBudgets } from '../budgets/limits';

/** How long an instance trusts what it read of a user's suspension: a suspension holds everywhere within this. */
export const SUSPENSION_CACHE_MS = 5_000;

/** What this instance last read of users' suspensions. */
const known = new Map<string, { suspended: boolean; until: number }>();

/** Forgets what this instance read of a user's suspension: the instance that suspends or resumes them knows at once. */
export function forgetSuspension(userId: string): void {
  known.delete(userId);
}

/**
 * Refuses a suspended user with 403 `user_suspended` (see POST /admin/users/:id/suspend). Suspensions
 * are kept with the budgets' operations store: without budgets there are none to read.
 */
export async function refuseIfSuspended(budgets: LoadBudgets | undefined, userId: string): Promise<void> {
  if (!budgets) return;
  let entry = known.get(userId);
  if (!entry || entry.until < Date.now()) {
    const suspension = await (await budgets()).operations.suspension(userId);
    entry = { suspended: !!suspension, until: Date.now() + SUSPENSION_CACHE_MS };
    known.set(userId, entry);
    if (known.size > 10_000) known.delete(known.keys().next().value!);
  }
  if (entry.suspended) throw new ZeroError('user_suspended', `user ${userId} is suspended by an administrator; their requests are refused until resumed`);
}
