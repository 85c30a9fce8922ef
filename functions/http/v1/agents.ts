import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import * as z from 'zod';
import { conflict, invalidField, notFound } from '@zero/agent/errors';
import {
  agentCreateParamsSchema,
  agentResource,
  agentUpdateParamsSchema,
  mayChangeAgent,
  modelOf,
  pickVersion,
  refuseUnsupported,
  resolveAgent,
  toolsOf,
  type ManagedAgentVersion,
} from '@zero/integrations/managed';
import { skillsOf } from '@zero/integrations/managed/agent-skills';
import { checkMcpReferences } from '@zero/integrations/managed/agent-mcp';
import { multiagentOf } from '@zero/integrations/managed/multiagent';
import { skillStore } from '@zero/runtime/skills/skill-store';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';

const newAgentId = () => `agent_${randomBytes(15).toString('hex')}`;

/** `/v1/agents`: Managed Agents API agents, stored as versions in the bucket; Markdown agents show as version 1. */
export function agentRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  app.post('/agents', json(agentCreateParamsSchema), async (c) => {
    const params = c.req.valid('json');
    refuseUnsupported(params);
    const tools = toolsOf(params.tools ?? [], deps.tools.names());
    const mcpServers = params.mcp_servers ?? [];
    checkMcpReferences(mcpServers, tools);
    const now = new Date().toISOString();
    const doc: ManagedAgentVersion = {
      v: 2,
      id: newAgentId(),
      version: 1,
      name: params.name,
      description: params.description ?? null,
      system: params.system ?? null,
      model: modelOf(params.model),
      tools,
      mcp_servers: mcpServers,
      metadata: params.metadata ?? {},
      skills: await skillsOf(params.skills ?? [], c.get('user').id, skillStore(deps.artifacts)),
      multiagent: params.multiagent ? await multiagentOf(params.multiagent, deps) : null,
      created_at: now,
      updated_at: now,
      archived_at: null,
      owner: c.get('user').id,
    };
    await deps.managedAgents.putVersion(doc, c.get('user'));
    return c.json(agentResource(doc));
  });

  app.get('/agents/:id', query(z.object({ version: z.coerce.number().int().positive().optional() })), async (c) => {
    const agent = await resolveAgent(deps, c.req.param('id'));
    const { doc } = pickVersion(agent, c.req.valid('query').version);
    return c.json(agentResource({ ...doc, archived_at: agent.archived_at }));
  });

  app.post('/agents/:id', json(agentUpdateParamsSchema), async (c) => {
    const params = c.req.valid('json');
    const agent = await resolveAgent(deps, c.req.param('id'));
    if (agent.kind === 'markdown') throw invalidField('agent_id', `"${c.req.param('id')}" is a Markdown agent (agents/${c.req.param('id')}.md): edit its file`);
    // Only its owner and administrators change an agent; anyone else learns nothing from the refusal (the store checks again).
    if (!mayChangeAgent(agent, c.get('user'))) throw notFound(`no agent "${c.req.param('id')}"`, 'agent_id');
    if (agent.archived_at) throw invalidField('agent_id', 'the agent is archived');
    refuseUnsupported({ ...params, tools: params.tools ?? undefined, mcp_servers: undefined, metadata: undefined });
    const newest = agent.versions.at(-1)!;
    if (params.version !== undefined && params.version !== newest.version) {
      throw conflict(`the agent is at version ${newest.version}, not ${params.version}: read it again and reapply the change`, { field: 'version' });
    }
    // `mcp_servers` and `tools` each replace in full when given; the result must reference every server it lists.
    const tools = params.tools === undefined ? newest.tools : toolsOf(params.tools ?? [], deps.tools.names());
    const mcpServers = params.mcp_servers === undefined ? newest.mcp_servers : (params.mcp_servers ?? []);
    checkMcpReferences(mcpServers, tools);
    const metadata = { ...newest.metadata };
    for (const [key, value] of Object.entries(params.metadata ?? {})) {
      if (value === null) delete metadata[key];
      else metadata[key] = value;
    }
    const next: ManagedAgentVersion = {
      ...newest,
      version: newest.version + 1,
      name: params.name ?? newest.name,
      description: params.description === undefined ? newest.description : params.description,
      system: params.system === undefined ? newest.system : params.system,
      model: params.model === undefined ? newest.model : modelOf(params.model),
      tools,
      mcp_servers: mcpServers,
      metadata: params.metadata === null ? {} : metadata,
      // Skills are the agent owner's: an administrator's update attaches the owner's, not their own.
      skills: params.skills === undefined ? newest.skills : await skillsOf(params.skills ?? [], newest.owner, skillStore(deps.artifacts)),
      multiagent: params.multiagent === undefined ? newest.multiagent : params.multiagent && (await multiagentOf(params.multiagent, deps)),
      updated_at: new Date().toISOString(),
    };
    // An update that changes nothing makes no version.
    const same = (a: ManagedAgentVersion) => JSON.stringify({ ...a, version: 0, updated_at: '' });
    if (same(next) === same(newest)) return c.json(agentResource(newest));
    await deps.managedAgents.putVersion(next, c.get('user'));
    return c.json(agentResource(next));
  });

  app.get(
    '/agents',
    query(z.object({ ...pageQuery, include_archived: queryBoolean.optional(), 'created_at[gte]': z.iso.datetime().optional(), 'created_at[lte]': z.iso.datetime().optional() })),
    async (c) => {
      const q = c.req.valid('query');
      const managed = (await deps.managedAgents.list()).agents
        .filter((a) => q.include_archived || !a.archived_at)
        .map((a) => ({ ...a.versions.at(-1)!, created_at: a.versions[0]!.created_at, archived_at: a.archived_at }))
        .sort((a, b) => b.created_at.localeCompare(a.created_at));
      const { agents } = await deps.catalog.load();
      const markdown = await Promise.all(
        [...agents.keys()].filter((id) => !id.includes('@') && !id.startsWith('agent_')).sort().map(async (id) => (await resolveAgent(deps, id)).versions[0]!),
      );
      const all = [...managed, ...markdown].filter(
        (a) => (!q['created_at[gte]'] || a.created_at >= q['created_at[gte]']) && (!q['created_at[lte]'] || a.created_at <= q['created_at[lte]']),
      );
      const page = pageOf(all, q);
      return c.json({ data: page.data.map(agentResource), next_page: page.next_page });
    },
  );

  app.post('/agents/:id/archive', async (c) => {
    const agent = await resolveAgent(deps, c.req.param('id'));
    if (agent.kind === 'markdown') throw invalidField('agent_id', `"${c.req.param('id')}" is a Markdown agent: remove its file to retire it`);
    if (!mayChangeAgent(agent, c.get('user'))) throw notFound(`no agent "${c.req.param('id')}"`, 'agent_id');
    const archivedAt = agent.archived_at ?? new Date().toISOString();
    if (!agent.archived_at) await deps.managedAgents.archive(c.req.param('id'), archivedAt, c.get('user'));
    return c.json(agentResource({ ...agent.versions.at(-1)!, archived_at: archivedAt }));
  });

  app.get('/agents/:id/versions', query(z.object(pageQuery)), async (c) => {
    const agent = await resolveAgent(deps, c.req.param('id'));
    const page = pageOf([...agent.versions].reverse(), c.req.valid('query'));
    return c.json({ data: page.data.map((v) => agentResource({ ...v, archived_at: agent.archived_at })), next_page: page.next_page });
  });

  return app;
}
