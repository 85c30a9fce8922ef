import { forbidden } from '@zero/agent/errors';
import { requireAccess } from '@zero/runtime/sessions/access';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { BudgetResponse } from '@zero/agent/wire';
import type { AppDeps } from '../env';

/** Administrators only: the 403 names what was asked. */
export function requireAdmin(user: AuthUser, action: string): void {
  if (!user.admin) throw forbidden(`only an administrator ${action}`);
}

/** The budget routes' work, loaded with the first budget request (see routes/budgets.ts). */
export const budgetHandlers = {
  async setSession(deps: AppDeps, me: AuthUser, sessionId: string, maxCostUsd: number | null): Promise<BudgetResponse> {
    await requireAccess(deps.sessions, sessionId, me, 'owner');
    const budgets = await deps.budgets!();
    const set = await budgets.setSessionBudget(sessionId, maxCostUsd, me.id);
    // Runs read the session's counter only for sessions that have a budget: the flag rides on the meta item they read anyway.
    await deps.sessions.updateSession(sessionId, { has_budget: true });
    return budgets.view('session', set);
  },
  async getDaily(deps: AppDeps, me: AuthUser, scope: 'user' | 'deployment', userId?: string): Promise<BudgetResponse> {
    if (scope === 'deployment') requireAdmin(me, "reads the deployment's budget");
    else if (userId !== me.id) requireAdmin(me, "reads other users' budgets");
    return (await deps.budgets!()).today(scope, userId);
  },
  async setDaily(deps: AppDeps, me: AuthUser, scope: 'user' | 'deployment', dailyUsd: number | null, userId?: string): Promise<BudgetResponse> {
    requireAdmin(me, 'sets budgets');
    return (await deps.budgets!()).setDailyBudget(scope, userId, dailyUsd, me.id);
  },
};
