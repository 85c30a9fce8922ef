import { Hono } from 'hono';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import { openSession } from '@zero/runtime/sessions/open-session';
import { deleteSession } from '@zero/runtime/sessions/delete-session';
import { wakeSession } from '@zero/runtime/sessions/wake-session';
import type { SessionMeta } from '@zero/runtime/store/items/session-meta';
import { customToolsOf, pickVersion, splitPinnedId, resolveAgent, writeSessionUpdate } from '@zero/integrations/managed';
import { writeSessionRecord, ZERO_ENVIRONMENT_ID, type ManagedSessionRecord } from '@zero/runtime/store/session-record';
import { checkMountPaths, enabledToolsetTools, environmentClientTools, githubRepositoryResource, sessionResourceParams } from '@zero/integrations/environment-store';
import { holdResources, resourceOf } from './session-resources';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { sendUserMessage, userMessageParams } from './messages';
import { queryBoolean } from './pages';
import { defaultRecord, managedSession, sessionResource } from './session-resource';
import { announceChange } from './session-changes';

const metadata = z.record(z.string().max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');

/** `POST /v1/sessions` (`SessionCreateParams`); fields that need what Zero does not have yet are refused by name. */
const sessionCreateParams = z.strictObject({
  agent: z.union([
    z.string().min(1).max(200),
    z.strictObject({ type: z.literal('agent'), id: z.string().min(1).max(200), version: z.number().int().positive().optional() }),
    z.looseObject({ type: z.literal('agent_with_overrides') }),
  ]),
  environment_id: z.string().min(1).max(200),
  title: z.string().max(500).nullish(),
  metadata: metadata.optional(),
  initial_events: z.array(z.looseObject({ type: z.string() })).max(10).optional(),
  budget: z.unknown().optional(),
  resources: z.array(sessionResourceParams).max(10).optional(),
  vault_ids: z.array(z.string().max(200)).max(10).optional(),
});

/** `POST /v1/sessions/:id` (`SessionUpdateParams`): title and metadata. */
const sessionUpdateParams = z.strictObject({
  title: z.string().max(500).nullish(),
  metadata: z.record(z.string().max(64), z.string().max(512).nullable()).nullish(),
  agent: z.unknown().optional(),
  budget: z.unknown().optional(),
  vault_ids: z.array(z.string()).optional(),
});

const sessionListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  page: z.string().max(2000).optional(),
  agent_id: z.string().max(200).optional(),
  agent_version: z.coerce.number().int().positive().optional(),
  include_archived: queryBoolean.optional(),
  order: z.literal('desc', 'Zero lists sessions newest first only').optional(),
});

export function managedSessionRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  app.post('/sessions', json(sessionCreateParams), async (c) => {
    const params = c.req.valid('json');
    const user = c.get('user');
    const environment = await deps.environments.reach(params.environment_id, user);
    if (environment.archived_at) throw invalidField('environment_id', `environment "${environment.id}" is archived: it takes no new sessions`);
    if (params.budget !== undefined) throw invalidField('budget', 'session budgets are not supported yet; Zero limits each run (ZERO_MAX_TOKENS, ZERO_MAX_STEPS)');
    const resources = await Promise.all((params.resources ?? []).map((resource, i) => resourceOf(deps, user, resource, `resources.${i}`)));
    checkMountPaths(resources, 'resources');
    if (resources.length && environment.kind === 'self_hosted') throw invalidField('resources', 'a self-hosted environment\'s worker has its own files: repositories are mounted only in the sandboxes Zero runs');
    // The caller's own vaults only, none archived: the session's tools use their credentials on the caller's behalf.
    const vaultIds = [...new Set(params.vault_ids ?? [])];
    for (const [i, id] of vaultIds.entries()) {
      const vault = await (await deps.vaults()).reachVault(user.id, id).catch(() => undefined);
      if (!vault) throw invalidField(`vault_ids.${i}`, `no vault "${id}"`);
      if (vault.archived_at) throw invalidField(`vault_ids.${i}`, `vault "${id}" is archived`);
    }
    if (typeof params.agent === 'object' && params.agent.type === 'agent_with_overrides') throw invalidField('agent', 'agent_with_overrides is not supported: update the agent to a new version instead');
    const ref = typeof params.agent === 'string' ? { id: params.agent } : (params.agent as { id: string; version?: number });
    const agent = await resolveAgent(deps, ref.id, 'agent');
    if (agent.archived_at) throw invalidField('agent', `agent "${ref.id}" is archived`);
    const { doc, catalogId } = pickVersion(agent, ref.version, 'agent.version');
    const customTools = customToolsOf(doc).map(({ name, description, input_schema }) => ({ name, description, input_schema }));
    // In a self-hosted environment the toolset tools are a worker's: a custom tool may not take one's name.
    const environmentTools = environment.kind === 'self_hosted' ? environmentClientTools(enabledToolsetTools(doc)) : [];
    const clash = customTools.find((tool) => environmentTools.some((t) => t.name === tool.name));
    if (clash) throw invalidField('agent', `custom tool "${clash.name}" has the name of an environment tool of the self-hosted environment`);
    const initial = (params.initial_events ?? []).map((event, i) => {
      const parsed = userMessageParams.safeParse(event);
      if (!parsed.success) throw invalidField(`initial_events.${i}`, 'only user.message events are supported');
      return parsed.data;
    });
    const session = await openSession(deps, user, { title: params.title ?? 'New session', agent_id: catalogId });
    const record: ManagedSessionRecord = {
      v: 1,
      agent_id: doc.id,
      agent_version: doc.version,
      environment_id: environment.id,
      title: params.title ?? null,
      metadata: params.metadata ?? {},
      archived_at: null,
      custom_tools: customTools,
      // Set (even empty) exactly when the environment is self-hosted: every run of the session reads it (sessions/session-environment.ts).
      ...(environment.kind === 'self_hosted' ? { environment_tools: environmentTools } : {}),
      ...(resources.length ? { resources } : {}),
      ...(vaultIds.length ? { vaults: { owner: user.id, ids: vaultIds } } : {}),
    };
    await holdResources(deps, session.session_id, resources);
    await writeSessionRecord(deps.artifacts, session.session_id, record);
    for (const [i, event] of initial.entries()) await sendUserMessage(deps, c, session.session_id, record, event, `initial_events.${i}`);
    return c.json(await sessionResource(deps, session, record));
  });

  app.get('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const { session, record } = await managedSession(deps, id, c.get('user'), 'viewer');
    // As every read of a session, at either door: a run its dead holder left goes on.
    await wakeSession(deps, id);
    return c.json(await sessionResource(deps, session, record, { withUsage: true }));
  });

  app.post('/sessions/:id', json(sessionUpdateParams), async (c) => {
    const params = c.req.valid('json');
    const id = c.req.param('id');
    for (const field of ['agent', 'budget', 'vault_ids'] as const) if (params[field] !== undefined) throw invalidField(field, 'cannot be changed through Zero yet');
    const { session, record } = await managedSession(deps, id, c.get('user'), 'editor');
    const current = record ?? defaultRecord(session);
    const meta = { ...current.metadata };
    for (const [key, value] of Object.entries(params.metadata ?? {})) {
      if (value === null) delete meta[key];
      else meta[key] = value;
    }
    const next = { ...current, title: params.title === undefined ? current.title : params.title, metadata: params.metadata === null ? {} : meta };
    await writeSessionRecord(deps.artifacts, id, next);
    // What changed shows in the session's events (`session.updated`): the title, and the whole metadata unless it is now empty.
    const titleChanged = next.title !== current.title;
    const metadataChanged = JSON.stringify(Object.entries(next.metadata).sort()) !== JSON.stringify(Object.entries(current.metadata).sort());
    if (titleChanged || metadataChanged) {
      const update = { ...(titleChanged ? { title: next.title } : {}), ...(metadataChanged && Object.keys(next.metadata).length ? { metadata: next.metadata } : {}) };
      await writeSessionUpdate(deps.artifacts, id, { v: 1, after_seq: await deps.sessions.lastEventSeq(id), at: new Date().toISOString(), ...update });
      announceChange(id);
    }
    if (params.title !== undefined) await deps.sessions.updateSession(id, { title: params.title ?? 'New session', updated_at: new Date().toISOString() });
    return c.json(await sessionResource(deps, await deps.sessions.requireSession(id), next, { withUsage: true }));
  });

  app.get('/sessions', query(sessionListQuery), async (c) => {
    const q = c.req.valid('query');
    const page = await deps.sessions.listSessionsFor(c.get('user').id, q.limit ?? 20, q.page);
    const resources = await Promise.all(page.sessions.map((s) => sessionResource(deps, s)));
    const data = resources.filter(
      (s) => (q.include_archived || !s.archived_at) && (!q.agent_id || s.agent.id === q.agent_id) && (!q.agent_version || s.agent.version === q.agent_version),
    );
    return c.json({ data, next_page: page.next_cursor ?? null, prev_page: null });
  });

  app.delete('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    await managedSession(deps, id, c.get('user'), 'owner');
    await deleteSession(deps, id);
    announceChange(id);
    return c.json({ type: 'session_deleted' as const, id });
  });

  app.post('/sessions/:id/archive', async (c) => {
    const id = c.req.param('id');
    const { session, record } = await managedSession(deps, id, c.get('user'), 'owner');
    const current = record ?? defaultRecord(session);
    const next = { ...current, archived_at: current.archived_at ?? new Date().toISOString() };
    await writeSessionRecord(deps.artifacts, id, next);
    return c.json(await sessionResource(deps, session, next));
  });

  return app;
}
