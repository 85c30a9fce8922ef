import { Hono } from 'hono';
import * as z from 'zod';
import { activeRunsResponseSchema, adminActionResponseSchema, auditLogResponseSchema, suspendRequestSchema, userIdSchema } from '@zero/agent/wire';
import { describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';

// The work loads with the first admin request, as the budget routes' does.
const work = () => import('../operations/admin-handlers').then((m) => m.adminHandlers);
const done = { responses: { 200: adminActionResponseSchema } };

/** The kill switch (administrators): the runs active across instances, cancelling one, suspending a user; all audited. */
export function adminRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const user = param(z.object({ id: userIdSchema }));
  app.get('/admin/runs', describe({ summary: 'The runs active now, in every session', responses: { 200: activeRunsResponseSchema } }), async (c) => c.json(await (await work()).listRuns(deps, c.get('user'))));
  app.post('/admin/runs/:run_id/cancel', describe({ summary: 'Stop a run at its next safe point', ...done }), async (c) => c.json(await (await work()).cancelRun(deps, c.get('user'), c.req.param('run_id'))));
  app.post('/admin/users/:id/suspend', describe({ summary: "Suspend a user: stop their runs, refuse their requests", ...done }), user, json(suspendRequestSchema), async (c) =>
    c.json(await (await work()).suspend(deps, c.get('user'), c.req.valid('param').id, c.req.valid('json').reason)),
  );
  app.post('/admin/users/:id/resume', describe({ summary: 'Resume a suspended user', ...done }), user, async (c) => c.json(await (await work()).resume(deps, c.get('user'), c.req.valid('param').id)));
  app.get('/admin/audit', describe({ summary: "Administrators' actions, newest first", responses: { 200: auditLogResponseSchema } }), async (c) => c.json(await (await work()).auditLog(deps, c.get('user'))));
  return app;
}
