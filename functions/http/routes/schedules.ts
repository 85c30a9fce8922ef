import { Hono } from 'hono';
import * as z from 'zod';
import { errorText, log } from '@zero/agent/log/log';
import { conflict, forbidden, notFound } from '@zero/agent/errors';
import { requireAgent } from '@zero/agent/definitions/catalog';
import { scheduleIdSchema, scheduleInputSchema, scheduleListSchema, scheduleResponseSchema, scheduleSyncResponseSchema } from '@zero/agent/wire';
import type { ScheduleConfig } from '@zero/integrations/schedules';
import { describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';

// croner is loaded with the first schedule request, not at cold start.
const schedules = () => import('@zero/integrations/schedules');

/** A schedule as the API shows it: its own state, its failed runs in a row and the next five times (UTC), none while it is paused. */
async function scheduleView(schedule: ScheduleConfig, failures: number, now = new Date()) {
  const { v: _v, ...rest } = schedule;
  const next = schedule.paused ? [] : (await schedules()).nextRuns(schedule.cron, schedule.timezone, now, 5);
  return { ...rest, failures, next_runs: next.map((d) => d.toISOString()) };
}

/** Schedule management (administrators only); behind the API's bearer auth. */
export function scheduleRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const admin = (c: { get(key: 'user'): { admin: boolean } }) => {
    if (!c.get('user').admin) throw forbidden('managing schedules needs an administrator');
  };
  const id = param(z.object({ schedule_id: scheduleIdSchema }));
  /** A deployment's schedule follows its deployment (`/v1/deployments`): replaced or deleted here, the deployment would no longer say what fires. */
  const notADeployments = async (scheduleId: string) => {
    const deploymentId = (await deps.schedules.store.get(scheduleId))?.deployment_id;
    if (deploymentId) throw conflict(`schedule "${scheduleId}" fires deployment "${deploymentId}": change, pause or archive it through /v1/deployments with its owner's key`, { field: 'schedule_id' });
  };

  // After an upgrade (schedules stored before they were EventBridge schedules), or to mend a change EventBridge refused.
  app.post('/schedules/sync', describe({ summary: 'Register every stored schedule again with what fires it (administrators)', responses: { 200: scheduleSyncResponseSchema } }), async (c) => {
    admin(c);
    const { trigger } = deps.schedules;
    const stored = await deps.schedules.store.list();
    if (!trigger) return c.json({ trigger: 'timer' as const, synced: stored.map((s) => s.id), failed: [] });
    const outcomes = await Promise.all(stored.map((schedule) => trigger.sync(schedule).then(() => undefined, (error: Error) => ({ schedule_id: schedule.id, message: error.message }))));
    const failed = outcomes.filter((o) => o !== undefined);
    return c.json({ trigger: 'eventbridge' as const, synced: stored.filter((s) => !failed.some((f) => f.schedule_id === s.id)).map((s) => s.id), failed });
  });

  app.get('/schedules', describe({ summary: 'Every schedule, with its state and next five times (administrators)', responses: { 200: scheduleListSchema } }), async (c) => {
    admin(c);
    const stored = (await deps.schedules.store.list()).sort((a, b) => a.id.localeCompare(b.id));
    const failures = await Promise.all(stored.map((schedule) => deps.schedules.markers.failures(schedule.id)));
    return c.json({ schedules: await Promise.all(stored.map((schedule, i) => scheduleView(schedule, failures[i]!))) });
  });

  app.put('/schedules/:schedule_id', describe({ summary: 'Create or replace a schedule (administrators)', responses: { 200: scheduleResponseSchema, 201: scheduleResponseSchema } }), id, json(scheduleInputSchema), async (c) => {
    admin(c);
    const input = c.req.valid('json');
    await notADeployments(c.req.valid('param').schedule_id);
    // A 400 naming `cron` when croner cannot read it in the time zone, or EventBridge Scheduler could not be given it.
    const { parseCron, schedulerExpressions } = await schedules();
    parseCron(input.cron, input.timezone);
    schedulerExpressions(input.cron);
    await requireAgent(deps.catalog, input.agent_id);
    const { schedule, created } = await deps.schedules.store.put(c.req.valid('param').schedule_id, input);
    // Storing a schedule again starts its failure count afresh.
    await deps.schedules.markers.clearFailures(schedule.id);
    // Stored first: a registration that failed (a 502 naming EventBridge's answer) is made by PUTting again.
    await deps.schedules.trigger?.sync(schedule);
    return c.json({ schedule: await scheduleView(schedule, 0) }, created ? 201 : 200);
  });

  app.get('/schedules/:schedule_id', describe({ summary: 'A schedule and its next five times (administrators)', responses: { 200: scheduleResponseSchema } }), async (c) => {
    admin(c);
    const id = c.req.param('schedule_id');
    const [schedule, failures] = await Promise.all([deps.schedules.store.require(id), deps.schedules.markers.failures(id)]);
    return c.json({ schedule: await scheduleView(schedule, failures) });
  });

  app.delete('/schedules/:schedule_id', describe({ summary: 'Delete a schedule (administrators)', responses: { 204: null } }), async (c) => {
    admin(c);
    const id = c.req.param('schedule_id');
    await notADeployments(id);
    if (!(await deps.schedules.store.delete(id))) throw notFound(`no schedule "${id}"`, 'schedule_id');
    // The schedule is gone: a registration left behind takes itself down at its next firing (fireScheduleJob).
    await deps.schedules.trigger?.remove(id).catch((error) => log.warn('a deleted schedule is still registered with EventBridge Scheduler until it next fires', { schedule_id: id, error: errorText(error) }));
    return c.body(null, 204);
  });

  return app;
}
