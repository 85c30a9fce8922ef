import type { AgentDefinition } from '@zero/agent/definitions/definition';
import { EFFORT_BUDGETS } from '@zero/agent/model/thinking';
import type { PermissionMap } from '@zero/agent/wire';
import { pinnedAgentId, rosterCatalogId, type ManagedAgentVersion } from './agent-document';
import { SKILL_TOOL } from '@zero/agent/definitions/claude-code-tools';
import { TOOLSET_TOOLS, type ToolsetToolName } from './toolset';
import { mcpToolName } from '../mcp/tool-name';

/** Zero's tool that hands a task to another agent (runtime's tools/delegate-agent.ts). */
const DELEGATE_TOOL = 'delegate_agent';

const POLICY_RULES = { always_allow: 'allow', always_ask: 'ask' } as const;

/**
 * A managed agent's version as the agent a run uses. `pinned`: the catalog entry of
 * that version (`<id>@<n>`), which a session that pinned it keeps using after updates.
 */
export function definitionOf(doc: ManagedAgentVersion, pinned: boolean): AgentDefinition {
  const tools: string[] = [];
  const permissions: PermissionMap = {};
  for (const tool of doc.tools) {
    if (tool.type !== 'agent_toolset_20260401') continue;
    for (const config of tool.configs) {
      if (!config.enabled) continue;
      const name = TOOLSET_TOOLS[config.name as ToolsetToolName];
      if (!name) continue;
      tools.push(name);
      // `auto` leaves the call to Zero's policy (side effects ask, reads run).
      const rule = POLICY_RULES[config.permission_policy.type as keyof typeof POLICY_RULES];
      if (rule) permissions[name] = rule;
    }
  }
  const mcp = mcpOf(doc, permissions);
  // Its skills are its owner's, who attached them: a run reads them as the owner's whoever runs it.
  const skills = doc.owner ? doc.skills.map((s) => ({ skill_id: s.skill_id, version: s.version, owner: doc.owner! })) : [];
  if (skills.length) tools.push(SKILL_TOOL);
  // A coordinator delegates to its roster, and to no one else: each delegation is a session thread.
  const delegation = (doc.multiagent?.agents ?? []).map((ref) => ({ agent_id: rosterCatalogId(ref), when: '' }));
  if (delegation.length) tools.push(DELEGATE_TOOL);
  return {
    id: pinned ? pinnedAgentId(doc.id, doc.version) : doc.id,
    name: doc.name,
    description: doc.description ?? doc.name,
    model: doc.model.id,
    tools,
    unavailable_tools: [],
    ...(skills.length ? { skills } : {}),
    ...(mcp ? { mcp } : {}),
    role: '',
    capabilities: [],
    process: '',
    knowledge: [],
    data_sources: [],
    delegation,
    voices: {},
    default_voice: 'full',
    ...(Object.keys(permissions).length ? { permissions } : {}),
    ...(doc.model.effort ? { thinking_budget: EFFORT_BUDGETS[doc.model.effort.type] } : {}),
    extra: doc.system ?? '',
    warnings: [],
  };
}

/**
 * Its `mcp_servers` as Zero's MCP servers (Streamable HTTP, no headers: a session's vault credential bound
 * to a server's URL is sent as its bearer, see mcp/clients.ts), and its `mcp_toolset` entries as grants
 * (`mcp__<server>__*`, less the tools disabled; only the tools enabled when the default is off) and rules.
 */
function mcpOf(doc: ManagedAgentVersion, permissions: PermissionMap): AgentDefinition['mcp'] {
  if (doc.mcp_servers.length === 0) return undefined;
  const servers = Object.fromEntries(doc.mcp_servers.map((s) => [s.name, { type: 'http' as const, url: s.url }]));
  const tools: string[] = [];
  const disallowed: string[] = [];
  for (const tool of doc.tools) {
    if (tool.type !== 'mcp_toolset') continue;
    const all = `mcp__${tool.mcp_server_name}__*`;
    if (tool.default_config.enabled) tools.push(all);
    const rule = POLICY_RULES[tool.default_config.permission_policy.type as keyof typeof POLICY_RULES];
    if (rule) permissions[all] = rule;
    for (const config of tool.configs) {
      const name = mcpToolName(tool.mcp_server_name, config.name);
      if (config.enabled && !tool.default_config.enabled) tools.push(name);
      if (!config.enabled && tool.default_config.enabled) disallowed.push(name);
      const own = POLICY_RULES[config.permission_policy.type as keyof typeof POLICY_RULES];
      if (config.enabled && own) permissions[name] = own;
    }
  }
  return { servers, references: [], tools, disallowed };
}
