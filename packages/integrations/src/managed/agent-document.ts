import * as z from 'zod';
import { mcpServerDefinitionSchema, mcpToolsetSchema } from './agent-mcp';

/**
 * The stored form of one version of an agent made through the Managed Agents API
 * (`POST /v1/agents`): the agent as the API shows it. Each version is its own
 * object, `agents/managed/<id>/v<NNNNNN>.json`, beside the Markdown agents (the
 * Markdown catalog reads only `agents/*.md`), so a version, once written, never changes.
 */
const permissionPolicySchema = z.object({ type: z.enum(['always_allow', 'always_ask', 'auto']) });
export type PermissionPolicy = z.infer<typeof permissionPolicySchema>;

export const toolConfigSchema = z.object({ name: z.string(), type: z.string(), enabled: z.boolean(), permission_policy: permissionPolicySchema });

export const agentToolsetSchema = z.object({
  type: z.literal('agent_toolset_20260401'),
  default_config: z.object({ enabled: z.boolean(), permission_policy: permissionPolicySchema }),
  configs: z.array(toolConfigSchema),
});

export const customToolSchema = z.object({
  type: z.literal('custom'),
  name: z.string(),
  description: z.string(),
  input_schema: z.looseObject({ type: z.literal('object') }),
});
export type CustomTool = z.infer<typeof customToolSchema>;

export const managedModelSchema = z.object({ id: z.string(), effort: z.object({ type: z.enum(['low', 'medium', 'high']) }).optional() });

/** A resolved roster entry (`BetaManagedAgentsAgentReference`): a managed agent's version, or a Markdown agent (version 1). */
export const agentReferenceSchema = z.object({ type: z.literal('agent'), id: z.string(), version: z.number().int().positive() });
export const multiagentSchema = z.object({ type: z.literal('coordinator'), agents: z.array(agentReferenceSchema) });
export type Multiagent = z.infer<typeof multiagentSchema>;

/**
 * The catalog id a roster entry runs under: a managed agent's pinned version (`<id>@<n>`; its ids are `agent_…`,
 * which no Markdown agent's file name is, see agents.ts), a Markdown agent's own id.
 */
export const rosterCatalogId = (ref: z.infer<typeof agentReferenceSchema>) => (ref.id.startsWith('agent_') ? pinnedAgentId(ref.id, ref.version) : ref.id);

const versionFields = {
  id: z.string(),
  version: z.number().int().positive(),
  name: z.string(),
  description: z.string().nullable(),
  system: z.string().nullable(),
  model: managedModelSchema,
  tools: z.array(z.discriminatedUnion('type', [agentToolsetSchema, customToolSchema, mcpToolsetSchema])),
  /** The MCP servers its `mcp_toolset` tools reach, by URL (none in versions written before MCP servers). */
  mcp_servers: z.array(mcpServerDefinitionSchema).default([]),
  metadata: z.record(z.string(), z.string()),
  /** Custom skills, each pinned to the version it resolved to when the version was written (none in versions written before skills). */
  skills: z.array(z.object({ type: z.literal('custom'), skill_id: z.string(), version: z.string() })).default([]),
  /**
   * A coordinator's roster (`BetaManagedAgentsMultiagentCoordinator`), each agent resolved to a version when the version
   * was written: it delegates to them, each delegation a session thread. Null: it delegates to no one (none in older versions).
   */
  multiagent: multiagentSchema.nullable().default(null),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
};

/**
 * A version as written now (v2): `owner` is the user who made the agent, the only one (with
 * administrators) who may change it; null for an agent made before agents had owners (v1) and
 * for a Markdown agent, which no one changes through the API.
 */
export const managedAgentVersionSchema = z.object({ v: z.literal(2), ...versionFields, owner: z.string().nullable() });

/** A stored version of any version this code reads, as the current shape: a v1 version (no owner) reads with `owner: null`. */
export const storedManagedAgentVersionSchema = z.union([
  managedAgentVersionSchema,
  z.object({ v: z.literal(1), ...versionFields }).transform((doc) => ({ ...doc, v: 2 as const, owner: null })),
]);
export type ManagedAgentVersion = z.infer<typeof managedAgentVersionSchema>;

/** What the API answers for an agent (`BetaManagedAgentsAgent`): the stored version plus the fields Zero always answers the same way. */
export function agentResource(doc: ManagedAgentVersion) {
  // Who owns it is Zero's business: the API's agent has no such field.
  const { v: _v, owner: _owner, ...rest } = doc;
  return {
    type: 'agent' as const,
    ...rest,
    tools: rest.tools.map(toolResource),
    execution_identity: { type: 'service_account' as const },
  };
}
export type AgentResource = ReturnType<typeof agentResource>;

/**
 * A tool as the API answers it: `web_fetch`'s config carries `url_sources`, required in the answer
 * (`BetaManagedAgentsWebFetchToolConfig`); null, as Zero sets none: every source's URLs may be
 * fetched, within Zero's own network rules.
 */
function toolResource(tool: ManagedAgentVersion['tools'][number]) {
  if (tool.type !== 'agent_toolset_20260401') return tool;
  return { ...tool, configs: tool.configs.map((config) => (config.name === 'web_fetch' ? { ...config, url_sources: null } : config)) };
}

/** Custom tools of a version: what Zero runs as client tools, answered by the SDK's `user.custom_tool_result`. */
export const customToolsOf = (doc: Pick<ManagedAgentVersion, 'tools'>): CustomTool[] => doc.tools.filter((t): t is CustomTool => t.type === 'custom');

/** The catalog id of a pinned version: the agent's id answers its newest version, `<id>@<n>` version n. */
export const pinnedAgentId = (id: string, version: number) => `${id}@${version}`;

/** Splits a catalog id into the agent and the version it pins (none: the newest). */
export function splitPinnedId(agentId: string): { id: string; version?: number } {
  const match = /^(.+)@(\d{1,9})$/.exec(agentId);
  return match ? { id: match[1]!, version: Number(match[2]) } : { id: agentId };
}
