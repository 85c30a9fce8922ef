import { Hono } from 'hono';
import * as z from 'zod';
import { forbidden, invalidField, notFound } from '@zero/agent/errors';
import { referencedSecrets } from '@zero/integrations/mcp/secrets';
import type { McpServerRecord } from '@zero/integrations/mcp/server-store';
import { mcpServerInputSchema, mcpServerListSchema, mcpServerNameSchema, mcpServerResponseSchema } from '@zero/agent/wire';
import { describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';

/** A stored server as the API shows it: its definition holds secret references only, never their values. */
const serverView = ({ name, config, created_at, updated_at }: McpServerRecord) => ({ name, config, created_at, updated_at });

/**
 * Deployment-wide MCP servers (administrators only), kept in the bucket like
 * hooks: every agent may use them, its `tools:` deciding which of their tools.
 */
export function mcpServerRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const admin = (c: { get(key: 'user'): { admin: boolean } }) => {
    if (!c.get('user').admin) throw forbidden('managing MCP servers needs an administrator');
  };
  const nameParam = param(z.object({ name: mcpServerNameSchema }));

  app.put(
    '/mcp-servers/:name',
    describe({ summary: 'Create or replace a deployment-wide MCP server (administrators)', responses: { 200: mcpServerResponseSchema, 201: mcpServerResponseSchema } }),
    nameParam,
    json(mcpServerInputSchema),
    async (c) => {
      admin(c);
      const name = c.req.valid('param').name;
      const config = c.req.valid('json');
      // A reference to a secret the server does not have would fail at every connection: refused now, by name.
      const missing = referencedSecrets(config).filter((secret) => !deps.mcp.hasSecret(secret));
      if (missing.length) {
        const inHeaders = Object.values(config.headers ?? {}).some((value) => missing.some((secret) => value.includes(secret)));
        throw invalidField(inHeaders ? 'headers' : 'oauth', `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set in the server's environment`);
      }
      // The same checks as every request to it will pass (the addresses it resolves to are checked when it connects).
      for (const [field, url] of [['url', config.url], ['oauth.token_url', config.oauth?.token_url]] as const) {
        const refused = url ? await deps.mcp.refusedUrl(url) : undefined;
        if (refused) throw invalidField(field, `${refused}; an operator can allow the host with ZERO_OUTBOUND_ALLOW`);
      }
      const { server, created } = await deps.mcp.store.put(name, config);
      deps.mcp.deploymentChanged();
      return c.json({ server: serverView(server) }, created ? 201 : 200);
    },
  );

  app.get('/mcp-servers', describe({ summary: 'The deployment-wide MCP servers, with what this instance last saw of each (administrators)', responses: { 200: mcpServerListSchema } }), async (c) => {
    admin(c);
    const servers = await deps.mcp.store.list();
    return c.json({ servers: servers.map((s) => ({ ...serverView(s), status: deps.mcp.statusOf(s.name, s.config) })) });
  });

  app.get('/mcp-servers/:name', describe({ summary: 'A deployment-wide MCP server (administrators)', responses: { 200: mcpServerResponseSchema } }), nameParam, async (c) => {
    admin(c);
    return c.json({ server: serverView(await deps.mcp.store.require(c.req.valid('param').name)) });
  });

  app.delete('/mcp-servers/:name', describe({ summary: 'Delete a deployment-wide MCP server (administrators)', responses: { 204: null } }), nameParam, async (c) => {
    admin(c);
    const name = c.req.valid('param').name;
    if (!(await deps.mcp.store.delete(name))) throw notFound(`no MCP server "${name}"`, 'name');
    deps.mcp.deploymentChanged();
    return c.body(null, 204);
  });

  return app;
}
