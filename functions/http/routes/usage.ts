import { Hono } from 'hono';
import { usageQuerySchema, usageResponseSchema } from '@zero/agent/wire';
import { describe, query } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * `GET /usage`: tokens by kind, cost, runs and tool calls by tool, per user, agent, session or day,
 * from the usage counters each step adds to. Administrators see everyone's; a user their own.
 */
export function usageRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.get('/usage', describe({ summary: 'Usage by user, agent, session or day (administrators; a user sees their own)', responses: { 200: usageResponseSchema } }), query(usageQuerySchema), async (c) =>
    c.json(await (await import('../operations/usage-handlers')).readUsage(deps, c.get('user'), c.req.valid('query'))),
  );
  return app;
}
