import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { acknowledgeWork, failExpiredWork, patchMetadata, stopWork } from '@zero/integrations/environment-store';
import { DEFAULT_RECLAIM_MS, LeasePreconditionError } from '@zero/runtime/environments/work-queue';
import { type WorkItem } from '@zero/runtime/store/items/work-item';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery } from './pages';

/** The longest a poll waits for work to arrive (the API caps `block_ms` at 999). */
const MAX_BLOCK_MS = 999;
const POLL_EVERY_MS = 100;
/** Metadata keys that carry the call: Zero's, not the client's to change. */
const CALL_KEYS = ['zero.tool_use_id', 'zero.tool', 'zero.input'];

/**
 * A work item as the API shows it (`BetaSelfHostedWork`): its data names the session; the call to run
 * is in its metadata (`zero.tool`, `zero.input` as JSON, `zero.tool_use_id`). No per-item secret:
 * a worker answers with the credential it polls with.
 */
export function workResource(work: WorkItem) {
  return {
    type: 'work' as const,
    id: work.id,
    environment_id: work.environment_id,
    data: { type: 'session' as const, id: work.session_id },
    state: work.state,
    metadata: { ...work.metadata, 'zero.tool_use_id': work.tool_use_id, 'zero.tool': work.tool, 'zero.input': work.input },
    secret: null,
    created_at: work.created_at,
    acknowledged_at: work.acknowledged_at,
    started_at: work.acknowledged_at,
    latest_heartbeat_at: work.latest_heartbeat_at,
    stop_requested_at: work.stop_requested_at,
    stopped_at: work.stopped_at,
  };
}

/** The self-hosted environment the caller reaches; any other kind has no queue (a 400 naming it). */
async function selfHosted(deps: V1Deps, id: string, user: AuthUser) {
  const environment = await deps.environments.reach(id, user);
  if (environment.kind !== 'self_hosted') throw invalidField('environment_id', `environment "${id}" is ${environment.kind}, not self_hosted: it has no work queue`);
  return environment;
}

/** A refused heartbeat as the API answers it: a 412 carrying the lease as the server holds it. */
function preconditionFailed(c: Context<Env>, error: LeasePreconditionError) {
  return c.json(
    { type: 'error', error: { type: 'invalid_request_error', message: error.message, details: { error_code: 'heartbeat_precondition_failed', current_state: error.current } }, request_id: null },
    412,
  );
}

const pollQuery = z.object({
  block_ms: z.coerce.number().int().min(1).max(MAX_BLOCK_MS).optional(),
  reclaim_older_than_ms: z.coerce.number().int().min(0).max(3_600_000).optional(),
});
const heartbeatQuery = z.object({
  desired_ttl_seconds: z.coerce.number().int().positive().max(86_400).optional(),
  expected_last_heartbeat: z.string().min(1).max(100).optional(),
});

/**
 * `/v1/environments/:id/work`: a self-hosted environment's queue of tool calls, as the official SDK's
 * `beta.environments.work` calls it (poll, ack, heartbeat, stop, stats, list, retrieve, update).
 * Leases that ran out are failed by the environment's next poll or stats.
 */
export function workRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  app.get('/environments/:id/work/poll', query(pollQuery), async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    const q = c.req.valid('query');
    const workerId = c.req.header('anthropic-worker-id')?.slice(0, 200) || null;
    await failExpiredWork(deps, environment.id);
    const until = Date.now() + (q.block_ms ?? 0);
    for (;;) {
      const work = await deps.work.poll(environment.id, workerId, q.reclaim_older_than_ms ?? DEFAULT_RECLAIM_MS);
      if (work) return c.json(workResource(work));
      if (Date.now() + POLL_EVERY_MS > until) return c.json(null);
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
  });

  app.get('/environments/:id/work/stats', async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    await failExpiredWork(deps, environment.id);
    const open = (await deps.work.list(environment.id)).filter((w) => w.state === 'queued');
    const now = Date.now();
    const pending = open.filter((w) => w.polled_at && now - Date.parse(w.polled_at) < DEFAULT_RECLAIM_MS);
    return c.json({
      type: 'work_queue_stats' as const,
      depth: open.length - pending.length,
      pending: pending.length,
      oldest_queued_at: open[0]?.created_at ?? null,
      workers_polling: null,
    });
  });

  app.get('/environments/:id/work', query(z.object(pageQuery)), async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    const page = pageOf(await deps.work.list(environment.id), c.req.valid('query'));
    return c.json({ data: page.data.map(workResource), next_page: page.next_page });
  });

  app.get('/environments/:id/work/:work_id', async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    return c.json(workResource(await deps.work.require(environment.id, c.req.param('work_id'))));
  });

  app.post('/environments/:id/work/:work_id', json(z.strictObject({ metadata: z.record(z.string().min(1).max(64), z.string().max(512).nullable()) })), async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    const work = await deps.work.require(environment.id, c.req.param('work_id'));
    const patch = c.req.valid('json').metadata;
    const reserved = Object.keys(patch).find((key) => CALL_KEYS.includes(key));
    if (reserved) throw invalidField(`metadata.${reserved}`, 'is the call the work carries; it cannot be changed');
    return c.json(workResource(await deps.work.updateMetadata(work, patchMetadata(work.metadata, patch))));
  });

  app.post('/environments/:id/work/:work_id/ack', async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    const work = await deps.work.require(environment.id, c.req.param('work_id'));
    return c.json(workResource(await acknowledgeWork(deps, work)));
  });

  app.post('/environments/:id/work/:work_id/heartbeat', query(heartbeatQuery), async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    const q = c.req.valid('query');
    try {
      const { work, extended } = await deps.work.heartbeat(environment.id, c.req.param('work_id'), q.expected_last_heartbeat, q.desired_ttl_seconds);
      return c.json({ type: 'work_heartbeat' as const, last_heartbeat: work.latest_heartbeat_at ?? '', lease_extended: extended, state: work.state, ttl_seconds: work.ttl_seconds });
    } catch (error) {
      if (error instanceof LeasePreconditionError) return preconditionFailed(c, error);
      throw error;
    }
  });

  app.post('/environments/:id/work/:work_id/stop', json(z.strictObject({ force: z.boolean().nullish() })), async (c) => {
    const environment = await selfHosted(deps, c.req.param('id'), c.get('user'));
    const work = await deps.work.require(environment.id, c.req.param('work_id'));
    return c.json(workResource(await stopWork(deps, work, !!c.req.valid('json').force)));
  });

  return app;
}
