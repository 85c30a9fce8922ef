import { Hono } from 'hono';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { pickVersion, resolveAgent } from '@zero/integrations/managed';
import { checkMountPaths, githubRepositoryResource, memoryStoreRefusal, type SessionResourceParams } from '@zero/integrations/environment-store';
import { checkSchedule, deploymentCreateParams, deploymentUpdateParams, initialEventsOf, refuseBudget } from '@zero/integrations/managed/deployment-params';
import { deploymentResource, deploymentRunResource } from '@zero/integrations/managed/deployment-resource';
import { DeploymentStore, deploymentScheduleId, newDeploymentId, type DeploymentRecord, type DeploymentRunRecord } from '@zero/integrations/managed/deployment-store';
import { runDeploymentNow, syncDeploymentSchedule } from '@zero/integrations/managed/start-deployment';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';

// croner is loaded with the first deployment read, not at cold start.
const cron = () => import('@zero/integrations/schedules/cron');

/** The agent version a deployment pins (the newest when none is named), refused when archived; with the id its sessions run under. */
async function pinAgent(deps: V1Deps, param: string | { id: string; version?: number }) {
  const ref = typeof param === 'string' ? { id: param } : param;
  const agent = await resolveAgent(deps, ref.id, 'agent');
  if (agent.archived_at) throw invalidField('agent', `agent "${ref.id}" is archived`);
  const { doc, catalogId } = pickVersion(agent, ref.version, 'agent.version');
  return { agent: { id: doc.id, version: doc.version }, catalogId };
}

/** The id the sessions of an unchanged agent run under. */
async function catalogIdOf(deps: V1Deps, deployment: DeploymentRecord) {
  const agent = await resolveAgent(deps, deployment.agent.id, 'agent');
  return pickVersion(agent, agent.kind === 'markdown' ? undefined : deployment.agent.version, 'agent.version').catalogId;
}

/** The caller's environment, not archived (a 404 naming `environment_id` when they cannot reach it). */
async function environmentOf(deps: V1Deps, user: AuthUser, id: string) {
  const environment = await deps.environments.reach(id, user);
  if (environment.archived_at) throw invalidField('environment_id', `environment "${environment.id}" is archived: it takes no new sessions`);
  return environment;
}

/** The repositories each session mounts; files and memory stores are refused by name (a file is attached to a session, `sessions.resources.add`). */
function resourcesOf(user: AuthUser, params: readonly SessionResourceParams[], selfHosted: boolean) {
  const resources = params.map((resource, i) => {
    if (resource.type === 'memory_store') throw memoryStoreRefusal(`resources.${i}`);
    if (resource.type === 'file') throw invalidField(`resources.${i}.type`, 'file resources are not supported on a deployment yet: attach the file to each session it starts (client.beta.sessions.resources.add)');
    return githubRepositoryResource(resource, user.admin, `resources.${i}`);
  });
  checkMountPaths(resources, 'resources');
  if (resources.length && selfHosted) throw invalidField('resources', "a self-hosted environment's worker has its own files: repositories are mounted only in the sandboxes Zero runs");
  return resources;
}

/** The caller's own vaults, none archived: each session's tools use their credentials on the caller's behalf. */
async function vaultsOf(deps: V1Deps, user: AuthUser, ids: readonly string[]) {
  const unique = [...new Set(ids)];
  const vaults = await deps.vaults();
  for (const [i, id] of unique.entries()) {
    const vault = await vaults.reachVault(user.id, id).catch(() => undefined);
    if (!vault) throw invalidField(`vault_ids.${i}`, `no vault "${id}"`);
    if (vault.archived_at) throw invalidField(`vault_ids.${i}`, `vault "${id}" is archived`);
  }
  return unique;
}

const listQuery = z.object({
  ...pageQuery,
  agent_id: z.string().max(200).optional(),
  'created_at[gte]': z.iso.datetime({ offset: true }).optional(),
  'created_at[lte]': z.iso.datetime({ offset: true }).optional(),
  include_archived: queryBoolean.optional(),
  status: z.enum(['active', 'paused']).optional(),
});

/**
 * `/v1/deployments` (`client.beta.deployments`): an agent run unattended as its creator, on Zero's
 * schedules. A deployment with a cron is a Zero schedule (`depl-…`) that the timer or EventBridge
 * Scheduler fires; `run` starts a session now. Each user reaches only their own deployments.
 */
export function deploymentRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const store = new DeploymentStore(deps.artifacts);

  /** The deployment as the API shows it, with its schedule's state and its runs. */
  const view = async (deployment: DeploymentRecord, runs?: readonly DeploymentRunRecord[]) => {
    const [schedule, ownRuns, { nextRuns }] = await Promise.all([
      deployment.schedule ? deps.schedules.store.get(deploymentScheduleId(deployment.id)) : undefined,
      runs ?? store.runsOf(deployment.owner.user_id, deployment.id),
      cron(),
    ]);
    return deploymentResource(deployment, { schedule, runs: ownRuns, upcoming: (expression, timezone, count) => nextRuns(expression, timezone, new Date(), count) });
  };
  /** Stores the deployment, then makes its schedule match (the agent is looked up only for a schedule that stays). */
  const save = async (deployment: DeploymentRecord, catalogId?: string, options: { unpause?: boolean } = {}) => {
    await store.put(deployment);
    await syncDeploymentSchedule(deps, deployment, async () => catalogId ?? (await catalogIdOf(deps, deployment)), options);
    return view(deployment);
  };
  const changeable = async (user: AuthUser, id: string) => {
    const deployment = await store.reach(user.id, id);
    if (deployment.archived_at) throw invalidField('deployment_id', `deployment "${id}" is archived: it can no longer be changed or run`);
    return deployment;
  };

  app.post('/deployments', json(deploymentCreateParams), async (c) => {
    const params = c.req.valid('json');
    const user = c.get('user');
    refuseBudget(params.budget);
    const initial = initialEventsOf(params.initial_events);
    const environment = await environmentOf(deps, user, params.environment_id);
    const { agent, catalogId } = await pinAgent(deps, params.agent);
    const resources = resourcesOf(user, params.resources ?? [], environment.kind === 'self_hosted');
    const vaultIds = await vaultsOf(deps, user, params.vault_ids ?? []);
    if (params.schedule) await checkSchedule(params.schedule);
    const now = new Date().toISOString();
    const deployment: DeploymentRecord = {
      v: 1,
      id: newDeploymentId(),
      owner: { user_id: user.id, ...(user.name ? { name: user.name } : {}) },
      name: params.name,
      description: params.description || null,
      agent,
      environment_id: environment.id,
      initial_events: initial,
      metadata: params.metadata ?? {},
      resources,
      vault_ids: vaultIds,
      schedule: params.schedule ? { expression: params.schedule.expression.trim(), timezone: params.schedule.timezone } : null,
      paused: false,
      archived_at: null,
      created_at: now,
      updated_at: now,
    };
    return c.json(await save(deployment, catalogId));
  });

  app.get('/deployments/:id', async (c) => c.json(await view(await store.reach(c.get('user').id, c.req.param('id')))));

  app.post('/deployments/:id', json(deploymentUpdateParams), async (c) => {
    const params = c.req.valid('json');
    const user = c.get('user');
    const current = await changeable(user, c.req.param('id'));
    refuseBudget(params.budget);
    const pinned = params.agent === undefined ? undefined : await pinAgent(deps, params.agent);
    const environment = params.environment_id === undefined ? undefined : await environmentOf(deps, user, params.environment_id);
    if (params.schedule) await checkSchedule(params.schedule);
    const metadata = { ...current.metadata };
    for (const [key, value] of Object.entries(params.metadata ?? {})) {
      if (value === null) delete metadata[key];
      else metadata[key] = value;
    }
    if (Object.keys(metadata).length > 16) throw invalidField('metadata', 'at most 16 keys');
    const selfHosted = (environment ?? (await deps.environments.get(current.environment_id)))?.kind === 'self_hosted';
    const next: DeploymentRecord = {
      ...current,
      name: params.name ?? current.name,
      description: params.description === undefined ? current.description : params.description || null,
      agent: pinned?.agent ?? current.agent,
      environment_id: environment?.id ?? current.environment_id,
      initial_events: params.initial_events === undefined ? current.initial_events : initialEventsOf(params.initial_events),
      metadata: params.metadata === null ? {} : metadata,
      resources: params.resources === undefined ? current.resources : resourcesOf(user, params.resources ?? [], selfHosted),
      vault_ids: params.vault_ids === undefined ? current.vault_ids : await vaultsOf(deps, user, params.vault_ids ?? []),
      schedule: params.schedule === undefined ? current.schedule : params.schedule && { expression: params.schedule.expression.trim(), timezone: params.schedule.timezone },
      updated_at: new Date().toISOString(),
    };
    if (next.resources.length && selfHosted) throw invalidField('environment_id', "a self-hosted environment's worker has its own files: clear the deployment's resources to move it there");
    return c.json(await save(next, pinned?.catalogId));
  });

  app.get('/deployments', query(listQuery), async (c) => {
    const q = c.req.valid('query');
    if (q.status && q.include_archived) throw invalidField('status', 'cannot be combined with include_archived: archived deployments report "active"');
    const { deployments, runs } = await store.listAll(c.get('user').id);
    const shown = deployments.filter(
      (d) =>
        (q.include_archived || !d.archived_at) &&
        (!q.agent_id || d.agent.id === q.agent_id) &&
        (!q['created_at[gte]'] || Date.parse(d.created_at) >= Date.parse(q['created_at[gte]'])) &&
        (!q['created_at[lte]'] || Date.parse(d.created_at) <= Date.parse(q['created_at[lte]'])),
    );
    const views = (await Promise.all(shown.map((d) => view(d, runs)))).filter((d) => !q.status || d.status === q.status);
    return c.json(pageOf(views, q));
  });

  app.post('/deployments/:id/archive', async (c) => {
    const current = await store.reach(c.get('user').id, c.req.param('id'));
    if (current.archived_at) return c.json(await view(current));
    const now = new Date().toISOString();
    return c.json(await save({ ...current, archived_at: now, paused: false, updated_at: now }));
  });

  app.post('/deployments/:id/pause', async (c) => {
    const current = await changeable(c.get('user'), c.req.param('id'));
    return c.json(await save({ ...current, paused: true, updated_at: new Date().toISOString() }));
  });

  app.post('/deployments/:id/unpause', async (c) => {
    const current = await changeable(c.get('user'), c.req.param('id'));
    return c.json(await save({ ...current, paused: false, updated_at: new Date().toISOString() }, undefined, { unpause: true }));
  });

  app.post('/deployments/:id/run', async (c) => {
    const user = c.get('user');
    const deployment = await changeable(user, c.req.param('id'));
    return c.json(deploymentRunResource(await runDeploymentNow(deps, deployment, user)));
  });

  return app;
}
