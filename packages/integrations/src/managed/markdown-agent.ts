import type { AgentDefinition } from '@zero/agent/definitions/definition';
import { splitPinnedId, type ManagedAgentVersion } from './agent-document';
import { TOOLSET_TOOLS } from './toolset';

/** When a Markdown agent was made is not known to the catalog: it answers with the epoch. */
const UNKNOWN_TIME = new Date(0).toISOString();

/**
 * A Markdown agent (`agents/<id>.md`) as the Managed Agents API shows it: version 1, its toolset
 * tools enabled where the file grants Zero's tool of the same job. It changes only by editing the file.
 */
export function markdownAgentVersion(agent: AgentDefinition, defaultModel: string): ManagedAgentVersion {
  const granted = new Set(agent.tools);
  const system = [agent.role, agent.extra].filter(Boolean).join('\n\n');
  return {
    v: 2,
    id: agent.id,
    version: 1,
    name: agent.name,
    description: agent.description,
    system: system || null,
    model: { id: agent.model ?? defaultModel },
    tools: [
      {
        type: 'agent_toolset_20260401',
        default_config: { enabled: false, permission_policy: { type: 'auto' } },
        configs: Object.entries(TOOLSET_TOOLS).map(([name, tool]) => ({
          name,
          type: name,
          enabled: granted.has(tool),
          permission_policy: { type: agent.permissions?.[tool] === 'allow' ? 'always_allow' : agent.permissions?.[tool] === 'ask' ? 'always_ask' : 'auto' },
        })),
      },
    ],
    mcp_servers: [],
    metadata: { source: `agents/${agent.id}.md` },
    // A file's skills are names resolved per session (the starter's skills): no version to pin here.
    skills: [],
    // A file that delegates (`delegates_to:`) coordinates the agents it names, as a roster of version-1 references.
    multiagent: agent.delegation.length ? { type: 'coordinator', agents: agent.delegation.map((rule) => ({ type: 'agent' as const, ...splitRef(rule.agent_id) })) } : null,
    created_at: UNKNOWN_TIME,
    updated_at: UNKNOWN_TIME,
    archived_at: null,
    owner: null,
  };
}

/** A delegation rule's agent as a reference: a pinned managed version keeps its version; any other agent is version 1. */
function splitRef(agentId: string) {
  const { id, version } = splitPinnedId(agentId);
  return { id, version: version ?? 1 };
}
