import { Hono } from 'hono';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import { applyZeroInput, environmentIdSchema, environmentInputSchema, environmentListSchema, environmentPatchSchema, environmentResponseSchema, environmentView, patchMetadata, deleteEnvironment } from '@zero/integrations/environment-store';
import { DEFAULT_ENVIRONMENT_ID, defaultEnvironment, deploymentSandboxKind, newEnvironmentId } from '@zero/runtime/environments/environment-store';
import { type EnvironmentRecord } from '@zero/runtime/store/items/environment';
import { describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';

/** The environment for a change: not the built-in default, not archived. */
function changeable(environment: EnvironmentRecord): EnvironmentRecord {
  if (environment.id === DEFAULT_ENVIRONMENT_ID) throw invalidField('environment_id', 'the default environment is built in and cannot be changed');
  if (environment.archived_at) throw invalidField('environment_id', 'the environment is archived, so it cannot be changed');
  return environment;
}

/**
 * `/api/v2/environments`: where a session's commands run (`local`, `lambda`, `self_hosted`), with
 * packages, network allowlist and limits. A user reaches their own; administrators reach all; the
 * default one is everyone's. The same resources as `/v1/environments`.
 */
export function environmentApiRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const id = param(z.object({ environment_id: environmentIdSchema }));

  app.get('/environments', describe({ summary: 'The environments you reach, newest first, the default one last', responses: { 200: environmentListSchema } }), async (c) => {
    const environments = await deps.environments.listFor(c.get('user'));
    return c.json({ environments: environments.map(environmentView) });
  });

  app.post('/environments', describe({ summary: 'Create an environment', responses: { 201: environmentResponseSchema } }), json(environmentInputSchema), async (c) => {
    const input = c.req.valid('json');
    const now = new Date().toISOString();
    const base: EnvironmentRecord = {
      ...defaultEnvironment(),
      id: newEnvironmentId(),
      name: input.name,
      description: input.description ?? null,
      kind: input.kind ?? deploymentSandboxKind(),
      metadata: input.metadata ?? {},
      owner: c.get('user').id,
      created_at: now,
      updated_at: now,
    };
    const environment = applyZeroInput(base, input);
    await deps.environments.create(environment);
    return c.json({ environment: environmentView(environment) }, 201);
  });

  app.get('/environments/:environment_id', describe({ summary: 'An environment', responses: { 200: environmentResponseSchema } }), id, async (c) => {
    return c.json({ environment: environmentView(await deps.environments.reach(c.req.valid('param').environment_id, c.get('user'))) });
  });

  app.patch('/environments/:environment_id', describe({ summary: "Change an environment's name, packages, network or limits", responses: { 200: environmentResponseSchema } }), id, json(environmentPatchSchema), async (c) => {
    const patch = c.req.valid('json');
    const current = changeable(await deps.environments.reach(c.req.valid('param').environment_id, c.get('user')));
    const next: EnvironmentRecord = {
      ...applyZeroInput(current, patch),
      name: patch.name ?? current.name,
      description: patch.description === undefined ? current.description : patch.description,
      metadata: patchMetadata(current.metadata, patch.metadata),
      updated_at: new Date().toISOString(),
    };
    await deps.environments.replace(current, next);
    return c.json({ environment: environmentView({ ...next, revision: current.revision + 1 }) });
  });

  app.post('/environments/:environment_id/archive', describe({ summary: 'Archive an environment: it takes no new sessions', responses: { 200: environmentResponseSchema } }), id, async (c) => {
    const current = await deps.environments.reach(c.req.valid('param').environment_id, c.get('user'));
    if (current.id === DEFAULT_ENVIRONMENT_ID) throw invalidField('environment_id', 'the default environment is built in and cannot be archived');
    if (current.archived_at) return c.json({ environment: environmentView(current) });
    const now = new Date().toISOString();
    const next = { ...current, archived_at: now, updated_at: now };
    await deps.environments.replace(current, next);
    return c.json({ environment: environmentView(next) });
  });

  app.delete('/environments/:environment_id', describe({ summary: 'Delete an environment; its queued calls fail', responses: { 204: null } }), id, async (c) => {
    const current = await deps.environments.reach(c.req.valid('param').environment_id, c.get('user'));
    if (current.id === DEFAULT_ENVIRONMENT_ID) throw invalidField('environment_id', 'the default environment is built in and cannot be deleted');
    await deleteEnvironment(deps, current);
    return c.body(null, 204);
  });

  return app;
}
