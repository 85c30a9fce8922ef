import { Hono } from 'hono';
import { normalizePermissionMap } from '@zero/agent/definitions/permissions';
import { requireAccess } from '@zero/runtime/sessions/access';
import { requireAgent } from '@zero/agent/definitions/catalog';
import type { PermissionMap } from '@zero/agent/wire/permissions';
import type { SessionMeta } from '@zero/runtime/store/items/session-meta';
import type { SessionPermissions } from '@zero/runtime/store/items/session-permissions';
import { sessionPermissionsRequestSchema, sessionPermissionsSchema } from '@zero/agent/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * A session's permission overrides: a layer of its tool calls' policy that
 * may tighten the agent's and the deployment's, never loosen them (the
 * strictest layer decides). Every member reads them; only owners change them.
 */
export function permissionRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  /** The overrides, and the policy of each of the session's agent's tools with them applied. */
  const answer = async (session: SessionMeta, stored: SessionPermissions | undefined) => {
    const agent = await requireAgent(deps.catalog, session.agent_id);
    const permissions: PermissionMap = stored?.permissions ?? {};
    return {
      permissions,
      ...(stored ? { updated_by: stored.updated_by, updated_at: stored.updated_at } : {}),
      agent_id: agent.id,
      effective: await deps.tools.effectivePolicy(agent, permissions),
    };
  };

  app.get('/sessions/:id/permissions', describe({ summary: "A session's permission overrides and its agent's effective policy", responses: { 200: sessionPermissionsSchema } }), async (c) => {
    const id = c.req.param('id');
    const { session } = await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    return c.json(await answer(session, await deps.sessions.getPermissions(id)));
  });

  app.put('/sessions/:id/permissions', describe({ summary: "Replace a session's permission overrides (owners)", responses: { 200: sessionPermissionsSchema } }), json(sessionPermissionsRequestSchema), async (c) => {
    const id = c.req.param('id');
    const user = c.get('user');
    const { permissions } = c.req.valid('json');
    const { session } = await requireAccess(deps.sessions, id, user, 'owner');
    const stored = await deps.sessions.putPermissions(id, { permissions: normalizePermissionMap(permissions), updated_by: user.id, updated_at: new Date().toISOString() });
    return c.json(await answer(session, stored));
  });

  return app;
}
