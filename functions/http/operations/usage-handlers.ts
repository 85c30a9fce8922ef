import { invalidField } from '@zero/agent/errors';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { addTotals, dayOf, noUsage } from '@zero/runtime/store';
import type { UsageQuery, UsageResponse } from '@zero/agent/wire';
import type { AppDeps } from '../env';
import { requireAdmin } from './budget-handlers';

/** The longest span one request reads: a query per day. */
export const MAX_USAGE_DAYS = 92;
const DAY_MS = 86_400_000;

/** `GET /usage`'s work, loaded with its first request (see routes/usage.ts). */
export async function readUsage(deps: AppDeps, me: AuthUser, query: UsageQuery): Promise<UsageResponse> {
  // A user sees only their own; an administrator everyone's, or one user's with `user_id`.
  if (query.user_id !== undefined && query.user_id !== me.id) requireAdmin(me, "reads other users' usage");
  const userId = query.user_id ?? (me.admin ? undefined : me.id);
  const to = query.to ?? dayOf();
  const from = query.from ?? dayOf(new Date(Date.parse(`${to}T00:00:00Z`) - 6 * DAY_MS));
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS;
  if (span < 0) throw invalidField('from', 'must not be after to');
  if (span >= MAX_USAGE_DAYS) throw invalidField('from', `the span may be at most ${MAX_USAGE_DAYS} days`);
  const days = Array.from({ length: span + 1 }, (_, i) => dayOf(new Date(Date.parse(`${from}T00:00:00Z`) + i * DAY_MS)));

  const { usage } = await deps.budgets!();
  const read = await Promise.all(days.map((day) => usage.day(day, query.group_by, userId)));
  const groups = new Map<string, ReturnType<typeof noUsage>>();
  for (const entry of read.flat()) groups.set(entry.key, addTotals(groups.get(entry.key) ?? noUsage(), entry.totals));
  const listed = [...groups].map(([key, totals]) => ({ key, ...totals }));
  if (query.group_by !== 'day') listed.sort((a, b) => b.cost_usd - a.cost_usd || a.key.localeCompare(b.key));
  return {
    from,
    to,
    group_by: query.group_by,
    user_id: userId ?? null,
    groups: listed,
    total: listed.reduce((sum, group) => addTotals(sum, group), noUsage()),
  };
}
