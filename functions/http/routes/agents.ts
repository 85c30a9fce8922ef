import { Hono } from 'hono';
import { agentModel } from '@zero/agent/loop/run-setup';
import { describeThinking } from '@zero/agent/model/thinking';
import { agentListSchema } from '@zero/agent/wire';
import { describe } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * The agent catalog: each agent's model and tools as they will be used, the
 * policy of each tool (allow, ask or deny, and which policy says so), the
 * tools its file names that Zero does not have (with the reason) and other
 * remarks made while loading it, its MCP servers with what was last seen of
 * each, and the files that could not be loaded.
 */
export function agentRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.get('/agents', describe({ summary: 'The agent catalog', responses: { 200: agentListSchema } }), async (c) => {
    const { agents, errors } = await deps.catalog.load();
    const sorted = [...agents.values()].sort((a, b) => a.id.localeCompare(b.id));
    const policies = await Promise.all(sorted.map((a) => deps.tools.effectivePolicy(a)));
    // Status as this instance last saw each server: listing agents connects to none.
    const mcp = await Promise.all(sorted.map((a) => deps.mcp.describe(a)));
    const list = sorted.map((a, i) => ({
      id: a.id,
      name: a.name,
      description: a.description,
      ...(a.color ? { color: a.color } : {}),
      ...(a.persona ? { persona: a.persona } : {}),
      ...(a.domain ? { domain: a.domain } : {}),
      model: agentModel(a, deps.defaultModel, deps.tiers),
      ...(a.tier ? { tier: a.tier } : {}),
      thinking: describeThinking(agentModel(a, deps.defaultModel, deps.tiers), a, deps.limits),
      tools: a.tools,
      unavailable_tools: [...a.unavailable_tools, ...mcp[i]!.unavailable],
      mcp_tools: a.mcp?.tools ?? [],
      mcp_servers: mcp[i]!.servers,
      delegates_to: a.delegation.map((d) => d.agent_id),
      default_voice: a.default_voice,
      permission_mode: a.permission_mode ?? 'default',
      permissions: a.permissions ?? {},
      policy: policies[i]!,
      // An MCP tool whose server is not there is left out like any tool Zero lacks, and said so alike.
      warnings: [...a.warnings, ...mcp[i]!.unavailable.map(({ name, reason }) => `tool "${name}" was left out: ${reason}`)],
    }));
    return c.json({ agents: list, errors });
  });

  return app;
}
