import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import { mcpServerNameSchema } from '@zero/agent/wire/mcp-servers';

/** The most MCP servers one agent may list (`mcp_servers`: maximum 20). */
export const MAX_AGENT_MCP_SERVERS = 20;

const policy = z.object({ type: z.enum(['always_allow', 'always_ask', 'auto']) });
const policyParams = policy.nullish();

/**
 * One `mcp_servers[]` entry (`BetaManagedAgentsURLMCPServerParams`). The name becomes the `<server>` of
 * the tools' names (`mcp__<server>__<tool>`), so it is held to Zero's server names. The URL is untrusted:
 * every request to it passes the outbound guard when a run connects.
 */
export const mcpServerParams = z.strictObject({
  type: z.literal('url'),
  name: mcpServerNameSchema,
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
});

/** The stored (and answered) server: `BetaManagedAgentsMCPServerURLDefinition`. */
export const mcpServerDefinitionSchema = z.object({ type: z.literal('url'), name: z.string(), url: z.string() });
export type McpServerDefinition = z.infer<typeof mcpServerDefinitionSchema>;

/** `mcp_servers` as a create or update takes it: unique names. */
export const mcpServersParams = z
  .array(mcpServerParams)
  .max(MAX_AGENT_MCP_SERVERS, `at most ${MAX_AGENT_MCP_SERVERS} servers`)
  .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, 'server names must be unique');

/** One `mcp_toolset` tools entry (`BetaManagedAgentsMCPToolsetParams`). */
export const mcpToolsetParams = z.strictObject({
  type: z.literal('mcp_toolset'),
  mcp_server_name: z.string().min(1).max(255),
  configs: z.array(z.strictObject({ name: z.string().min(1).max(128), enabled: z.boolean().nullish(), permission_policy: policyParams })).max(128).optional(),
  default_config: z.strictObject({ enabled: z.boolean().nullish(), permission_policy: policyParams }).nullish(),
});

/** The stored (and answered) toolset, every default written out (`BetaManagedAgentsMCPToolset`). */
export const mcpToolsetSchema = z.object({
  type: z.literal('mcp_toolset'),
  mcp_server_name: z.string(),
  default_config: z.object({ enabled: z.boolean(), permission_policy: policy }),
  configs: z.array(z.object({ name: z.string(), enabled: z.boolean(), permission_policy: policy })),
});
export type McpToolset = z.infer<typeof mcpToolsetSchema>;

/** A toolset as stored. MCP tools default to `always_ask`, as the API's do: a server's tools are not Zero's to vouch for. */
export function mcpToolsetOf(tool: z.infer<typeof mcpToolsetParams>): McpToolset {
  const defaults = { enabled: tool.default_config?.enabled ?? true, permission_policy: tool.default_config?.permission_policy ?? { type: 'always_ask' as const } };
  const configs = (tool.configs ?? []).map((c) => ({ name: c.name, enabled: c.enabled ?? defaults.enabled, permission_policy: c.permission_policy ?? defaults.permission_policy }));
  return { type: 'mcp_toolset', mcp_server_name: tool.mcp_server_name, default_config: defaults, configs };
}

/**
 * Refuses, naming the field, a toolset whose server is not in `servers`, two toolsets for one server,
 * and a server no toolset references (the API's rule: every server must be referenced).
 */
export function checkMcpReferences(servers: readonly McpServerDefinition[], tools: readonly { type: string; mcp_server_name?: string }[]): void {
  const names = new Set(servers.map((s) => s.name));
  const used = new Set<string>();
  tools.forEach((tool, i) => {
    if (tool.type !== 'mcp_toolset') return;
    const name = tool.mcp_server_name!;
    if (!names.has(name)) throw invalidField(`tools.${i}.mcp_server_name`, `"${name}" is not the name of a server in mcp_servers`);
    if (used.has(name)) throw invalidField(`tools.${i}.mcp_server_name`, `"${name}" has two mcp_toolset entries`);
    used.add(name);
  });
  servers.forEach((server, i) => {
    if (!used.has(server.name)) throw invalidField(`mcp_servers.${i}.name`, `"${server.name}" is referenced by no mcp_toolset in tools`);
  });
}
