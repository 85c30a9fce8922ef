import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Budgets } from './budgets';

/** The deployment's budget settings, in micro-dollars; absent: no such limit. */
export interface BudgetLimits {
  /** The most a session's budget may be (`ZERO_BUDGET_SESSION_MAX_USD`); also the budget of a session that sets none. */
  sessionMaxMicros?: number;
  /** What one user may spend per UTC day (`ZERO_BUDGET_USER_DAILY_USD`), unless an administrator raised that day's. */
  userDailyMicros?: number;
  /** What the whole deployment may spend per UTC day (`ZERO_BUDGET_DAILY_USD`), unless an administrator raised that day's. */
  deploymentDailyMicros?: number;
  /**
   * With no limit on a run's scopes: how often, at most, the run's spend is added to its session's counter
   * while it goes on (the runs list's cost), in milliseconds; its first call's at once, the rest as it ends. Default 1000.
   */
  sessionSpendEveryMs?: number;
}

/** Reads the budget settings; a value that is not a positive number of dollars is refused at start-up. */
export function budgetLimitsFromEnv(env: Record<string, string | undefined>): BudgetLimits {
  const usd = (name: string) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of dollars, got "${raw}"`);
    return Math.round(value * 1_000_000);
  };
  return {
    sessionMaxMicros: usd('ZERO_BUDGET_SESSION_MAX_USD'),
    userDailyMicros: usd('ZERO_BUDGET_USER_DAILY_USD'),
    deploymentDailyMicros: usd('ZERO_BUDGET_DAILY_USD'),
  };
}

/** Loads budgets on first use (a message, a run, a budget route): nothing of them at cold start. */
export type LoadBudgets = () => Promise<Budgets>;

export function loadBudgets(db: DynamoDBDocumentClient, table: string, limits: BudgetLimits): LoadBudgets {
  let loaded: Promise<Budgets> | undefined;
  return () =>
    (loaded ??= import('./budgets').then((m) => m.createBudgets(db, table, limits)));
}
