import { Hono } from 'hono';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import { applyConfig, environmentCreateParams, environmentResource, environmentUpdateParams, patchMetadata, deleteEnvironment } from '@zero/integrations/environment-store';
import { DEFAULT_ENVIRONMENT_ID, defaultEnvironment, deploymentSandboxKind, newEnvironmentId } from '@zero/runtime/environments/environment-store';
import { type EnvironmentRecord } from '@zero/runtime/store/items/environment';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';

/** Zero's environments are their owner's (and administrators'): `organization` scope is refused by name. */
function checkScope(scope: string | null | undefined) {
  if (scope === 'organization') throw invalidField('scope', 'Zero environments are visible to their owner and administrators only; use "account" or leave it out');
}

/** The environment for a change: not the built-in default, not archived. */
function changeable(environment: EnvironmentRecord): EnvironmentRecord {
  if (environment.id === DEFAULT_ENVIRONMENT_ID) throw invalidField('environment_id', 'the default environment is built in and cannot be changed');
  if (environment.archived_at) throw invalidField('environment_id', 'the environment is archived, so it cannot be updated');
  return environment;
}

/** `/v1/environments`: environments as resources, in the SDK's shapes (`client.beta.environments`). */
export function environmentRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  app.post('/environments', json(environmentCreateParams), async (c) => {
    const params = c.req.valid('json');
    checkScope(params.scope);
    const now = new Date().toISOString();
    const base: EnvironmentRecord = {
      ...defaultEnvironment(),
      id: newEnvironmentId(),
      name: params.name,
      description: params.description ?? null,
      kind: deploymentSandboxKind(),
      metadata: params.metadata ?? {},
      owner: c.get('user').id,
      created_at: now,
      updated_at: now,
    };
    const environment = applyConfig(base, params.config, true);
    await deps.environments.create(environment);
    return c.json(environmentResource(environment));
  });

  app.get('/environments', query(z.object({ ...pageQuery, include_archived: queryBoolean.optional() })), async (c) => {
    const q = c.req.valid('query');
    const all = (await deps.environments.listFor(c.get('user'))).filter((e) => q.include_archived || !e.archived_at);
    const page = pageOf(all, q);
    return c.json({ data: page.data.map(environmentResource), next_page: page.next_page });
  });

  app.get('/environments/:id', async (c) => c.json(environmentResource(await deps.environments.reach(c.req.param('id'), c.get('user')))));

  app.post('/environments/:id', json(environmentUpdateParams), async (c) => {
    const params = c.req.valid('json');
    checkScope(params.scope);
    const current = changeable(await deps.environments.reach(c.req.param('id'), c.get('user')));
    const configured = applyConfig(current, params.config, false);
    const next: EnvironmentRecord = {
      ...configured,
      name: params.name ?? current.name,
      description: params.description === undefined ? current.description : params.description,
      metadata: patchMetadata(current.metadata, params.metadata),
      updated_at: new Date().toISOString(),
    };
    // An update that changes nothing writes nothing.
    const same = (e: EnvironmentRecord) => JSON.stringify({ ...e, updated_at: '' });
    if (same(next) === same(current)) return c.json(environmentResource(current));
    await deps.environments.replace(current, next);
    return c.json(environmentResource({ ...next, revision: current.revision + 1 }));
  });

  app.post('/environments/:id/archive', async (c) => {
    const current = await deps.environments.reach(c.req.param('id'), c.get('user'));
    if (current.id === DEFAULT_ENVIRONMENT_ID) throw invalidField('environment_id', 'the default environment is built in and cannot be archived');
    if (current.archived_at) return c.json(environmentResource(current));
    const now = new Date().toISOString();
    const next = { ...current, archived_at: now, updated_at: now };
    await deps.environments.replace(current, next);
    return c.json(environmentResource(next));
  });

  app.delete('/environments/:id', async (c) => {
    const current = await deps.environments.reach(c.req.param('id'), c.get('user'));
    if (current.id === DEFAULT_ENVIRONMENT_ID) throw invalidField('environment_id', 'the default environment is built in and cannot be deleted');
    await deleteEnvironment(deps, current);
    return c.json({ type: 'environment_deleted' as const, id: current.id });
  });

  return app;
}
