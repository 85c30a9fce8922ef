import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { ManagedAgentVersion, PermissionPolicy } from './agent-document';
import { TOOLSET_TOOLS, type ToolsetToolName } from './toolset';
import { mcpServersParams, mcpToolsetOf, mcpToolsetParams } from './agent-mcp';

const toolsetNames = Object.keys(TOOLSET_TOOLS) as [ToolsetToolName, ...ToolsetToolName[]];

const policyParams = z.object({ type: z.enum(['always_allow', 'always_ask', 'auto']) }).nullish();

/** One `configs[]` entry. Domain filters, URL sources and limits are refused (Zero's tools do not take them per agent): strict. */
const toolConfigParams = z.strictObject({
  name: z.enum(toolsetNames),
  type: z.enum(toolsetNames).optional(),
  enabled: z.boolean().nullish(),
  permission_policy: policyParams,
});

const toolsetParams = z.strictObject({
  type: z.literal('agent_toolset_20260401'),
  configs: z.array(toolConfigParams).optional(),
  default_config: z.strictObject({ enabled: z.boolean().nullish(), permission_policy: policyParams }).nullish(),
});

const customToolParams = z.strictObject({
  type: z.literal('custom'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
  description: z.string().max(4000),
  input_schema: z.looseObject({ type: z.literal('object', 'must be a JSON Schema of type "object"') }),
});

const toolParams = z.union([toolsetParams, customToolParams, mcpToolsetParams]);

const modelParams = z.union([
  z.string().min(1).max(100),
  z.strictObject({
    id: z.string().min(1).max(100),
    effort: z.union([z.string(), z.object({ type: z.string() })]).nullish(),
    speed: z.enum(['standard', 'fast']).nullish(),
    inference_geo: z.string().nullish(),
  }),
]);

/** The most skills one agent may list. */
export const MAX_AGENT_SKILLS = 20;

/** One `skills[]` entry (`BetaManagedAgentsSkillParams`): resolved to a version of one of the owner's skills (see agent-skills.ts). */
const skillParams = z.strictObject({
  type: z.enum(['custom', 'anthropic']),
  skill_id: z.string().min(1).max(200),
  version: z.string().max(64).nullish(),
});

/** The most agents a coordinator's roster may list (`BetaManagedAgentsMultiagentCoordinatorParams.agents`). */
export const MAX_ROSTER_AGENTS = 20;

/** One roster entry (`BetaManagedAgentsMultiagentRosterEntryParams`): an agent id, a versioned reference, `self` or an advisor. */
const rosterEntryParams = z.union([
  z.string().min(1).max(200),
  z.strictObject({ type: z.literal('agent'), id: z.string().min(1).max(200), version: z.number().int().positive().nullish() }),
  z.strictObject({ type: z.literal('self') }),
  z.strictObject({ type: z.literal('advisor'), model: z.string().min(1).max(100) }),
]);
export type RosterEntryParams = z.infer<typeof rosterEntryParams>;

/** `multiagent` (`BetaManagedAgentsMultiagentParams`): a coordinator's roster; the `multiagent_20261001` form is refused by name (see multiagent.ts). */
const multiagentParams = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('coordinator'), agents: z.array(rosterEntryParams).min(1, 'name 1 to 20 agents').max(MAX_ROSTER_AGENTS, `at most ${MAX_ROSTER_AGENTS} agents`) }),
  z.looseObject({ type: z.literal('multiagent_20261001') }),
]);

const metadata = z.record(z.string().max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');

/** The fields of `POST /v1/agents` (`AgentCreateParams`); a field Zero does not know is refused by name. */
export const agentCreateParamsSchema = z.strictObject({
  name: z.string().trim().min(1).max(256),
  model: modelParams,
  description: z.string().max(2048).nullish(),
  system: z.string().max(100_000).nullish(),
  tools: z.array(toolParams).max(128).optional(),
  metadata: metadata.optional(),
  mcp_servers: mcpServersParams.optional(),
  skills: z.array(skillParams).max(MAX_AGENT_SKILLS, `at most ${MAX_AGENT_SKILLS} skills`).optional(),
  multiagent: multiagentParams.nullish(),
  execution_identity: z.unknown().optional(),
});
export type AgentCreateParams = z.infer<typeof agentCreateParamsSchema>;

/** The fields of `POST /v1/agents/:id` (`AgentUpdateParams`): `version` is the version the caller read (optimistic concurrency). */
export const agentUpdateParamsSchema = z.strictObject({
  ...agentCreateParamsSchema.partial().shape,
  metadata: z.record(z.string().max(64), z.string().max(512).nullable()).nullish(),
  tools: z.array(toolParams).max(128).nullish(),
  mcp_servers: mcpServersParams.nullish(),
  version: z.number().int().positive().optional(),
});
export type AgentUpdateParams = z.infer<typeof agentUpdateParamsSchema>;

/** Refuses, naming the field, what Zero cannot honour rather than dropping it. */
export function refuseUnsupported(params: Partial<AgentCreateParams>) {
  if (params.execution_identity != null && (params.execution_identity as { type?: unknown }).type !== 'service_account') {
    throw invalidField('execution_identity', 'Zero runs every agent as its own Lambda role (service_account)');
  }
  if (typeof params.model === 'object') {
    if (params.model.speed === 'fast') throw invalidField('model.speed', 'Zero has no fast mode');
    if (params.model.inference_geo) throw invalidField('model.inference_geo', 'Zero calls the model where its deployment says');
  }
}

/** The model as stored: an id, and an effort Zero maps to a thinking budget (low, medium, high). */
export function modelOf(model: AgentCreateParams['model'], field = 'model'): ManagedAgentVersion['model'] {
  if (typeof model === 'string') return { id: model };
  const effort = typeof model.effort === 'string' ? model.effort : model.effort?.type;
  if (effort === undefined || effort === null) return { id: model.id };
  if (effort !== 'low' && effort !== 'medium' && effort !== 'high') throw invalidField(`${field}.effort`, `"${effort}" has no thinking budget in Zero; use low, medium or high`);
  return { id: model.id, effort: { type: effort } };
}

const DEFAULT_POLICY: PermissionPolicy = { type: 'auto' };

/**
 * The tools as stored (and answered): each toolset written out in full, each of its tools checked
 * against the tools this deployment has (`bash` needs `run_command`).
 */
export function toolsOf(tools: NonNullable<AgentCreateParams['tools']>, known: ReadonlySet<string>): ManagedAgentVersion['tools'] {
  const custom = new Set<string>();
  return tools.map((tool, i) => {
    if (tool.type === 'custom') {
      const t = tool as z.infer<typeof customToolParams>;
      if (known.has(t.name)) throw invalidField(`tools.${i}.name`, `"${t.name}" is the name of one of Zero's tools`);
      if (custom.has(t.name)) throw invalidField(`tools.${i}.name`, `"${t.name}" is declared twice`);
      custom.add(t.name);
      return { type: 'custom' as const, name: t.name, description: t.description, input_schema: t.input_schema };
    }
    if (tool.type === 'mcp_toolset') return mcpToolsetOf(tool as z.infer<typeof mcpToolsetParams>);
    const toolset = tool as z.infer<typeof toolsetParams>;
    const defaults = { enabled: toolset.default_config?.enabled ?? true, permission_policy: toolset.default_config?.permission_policy ?? DEFAULT_POLICY };
    const given = new Map((toolset.configs ?? []).map((c, j) => [c.name, { c, j }]));
    const configs = toolsetNames.map((name) => {
      const entry = given.get(name);
      const enabled = entry?.c.enabled ?? defaults.enabled;
      const zeroTool = TOOLSET_TOOLS[name];
      if (enabled && !known.has(zeroTool)) {
        const field = entry ? `tools.${i}.configs.${entry.j}.name` : `tools.${i}.default_config.enabled`;
        throw invalidField(field, `"${name}" needs Zero's ${zeroTool} tool, which this deployment does not have; disable it`);
      }
      return { name, type: name, enabled, permission_policy: entry?.c.permission_policy ?? defaults.permission_policy };
    });
    return { type: 'agent_toolset_20260401' as const, default_config: defaults, configs };
  });
}
