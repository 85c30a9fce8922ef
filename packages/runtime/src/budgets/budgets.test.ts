import { describe, expect, it } from 'vitest';
import { budgetReason } from './budgets';
import { budgetLimitsFromEnv } from './limits';

describe('budget settings', () => {
  it('reads dollars as micro-dollars; unset is no limit', () => {
    expect(budgetLimitsFromEnv({ ZERO_BUDGET_SESSION_MAX_USD: '2.5', ZERO_BUDGET_DAILY_USD: '100', ZERO_BUDGET_USER_DAILY_USD: '' })).toEqual({
      sessionMaxMicros: 2_500_000,
      userDailyMicros: undefined,
      deploymentDailyMicros: 100_000_000,
    });
  });

  it('stops the start on a value that is not a positive number of dollars, naming the variable', () => {
    for (const raw of ['0', '-1', 'ten', 'Infinity']) {
      expect(() => budgetLimitsFromEnv({ ZERO_BUDGET_DAILY_USD: raw })).toThrow(`ZERO_BUDGET_DAILY_USD must be a positive number of dollars, got "${raw}"`);
    }
  });
});

describe('the words of a spent budget', () => {
  it('say which budget, how much of it, and who can raise it where', () => {
    const spend = { spentMicros: 1_234_567, limitMicros: 1_000_000 };
    expect(budgetReason('session', spend)).toBe(
      "the session's budget is spent ($1.234567 of $1); its owner can raise it with PUT /api/v2/sessions/:id/budget, then send a message to carry on",
    );
    expect(budgetReason('user', spend)).toMatch(/^your daily budget is spent \(\$1\.234567 of \$1 today, UTC\); an administrator can raise it with PUT \/api\/v2\/admin\/budgets\/users\/:id$/);
    expect(budgetReason('deployment', spend)).toMatch(/the deployment's daily budget is spent .* PUT \/api\/v2\/admin\/budgets\/deployment$/);
  });
});
