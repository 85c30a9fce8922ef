import { Hono } from 'hono';
import * as z from 'zod';
import { budgetResponseSchema, dailyBudgetRequestSchema, sessionBudgetRequestSchema, userIdSchema } from '@zero/agent/wire';
import { describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';

// The work loads with the first budget request: an operator's routes cost next to nothing at cold start.
const work = () => import('../operations/budget-handlers').then((m) => m.budgetHandlers);
const ok = { responses: { 200: budgetResponseSchema } };

/**
 * Budgets: a session's (its owner sets it; a session's spend is in `GET /sessions/:id`), a user's and the
 * deployment's for the day (administrators raise them; a raise holds for the current UTC day, over
 * `ZERO_BUDGET_USER_DAILY_USD` / `ZERO_BUDGET_DAILY_USD`).
 */
export function budgetRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const user = param(z.object({ user_id: userIdSchema }));
  app.put('/sessions/:id/budget', describe({ summary: "Set a session's budget (owners)", ...ok }), json(sessionBudgetRequestSchema), async (c) =>
    c.json(await (await work()).setSession(deps, c.get('user'), c.req.param('id'), c.req.valid('json').max_cost_usd)),
  );
  app.get('/admin/budgets/users/:user_id', describe({ summary: "A user's budget today", ...ok }), user, async (c) =>
    c.json(await (await work()).getDaily(deps, c.get('user'), 'user', c.req.valid('param').user_id)),
  );
  app.put('/admin/budgets/users/:user_id', describe({ summary: "Set a user's budget today", ...ok }), user, json(dailyBudgetRequestSchema), async (c) =>
    c.json(await (await work()).setDaily(deps, c.get('user'), 'user', c.req.valid('json').daily_usd, c.req.valid('param').user_id)),
  );
  app.get('/admin/budgets/deployment', describe({ summary: "The deployment's budget today", ...ok }), async (c) =>
    c.json(await (await work()).getDaily(deps, c.get('user'), 'deployment')),
  );
  app.put('/admin/budgets/deployment', describe({ summary: "Set the deployment's budget today", ...ok }), json(dailyBudgetRequestSchema), async (c) =>
    c.json(await (await work()).setDaily(deps, c.get('user'), 'deployment', c.req.valid('json').daily_usd)),
  );
  return app;
}
