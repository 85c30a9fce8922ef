import { MODEL_TIERS } from '../model/aliases';
import * as z from 'zod';
import { complexityLevelSchema, maxToolIterationsSchema, mcpServerConfigSchema, permissionMapSchema, permissionModeSchema, thinkingRequestSchema, toolLimitsSchema, voiceModeSchema } from '../wire';
import { agentMcpServersSchema } from './mcp-servers';

/** Claude Code's tool names as Zero's (kept in one table: ./claude-code-tools). */
export { TOOL_ALIASES } from './claude-code-tools';

/** An agent's compaction settings: the share of the window that triggers it, and the latest turns it keeps. */
export const compactionSettingsSchema = z.strictObject({
  at_percent: z.number().int().min(1).max(100).optional(),
  keep_turns: z.number().int().min(0).max(100).optional(),
});

const toolList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((s) => s.trim()).filter(Boolean));

/** YAML frontmatter: Claude Code's subagent fields plus Zero's optional ones. */
export const agentFrontmatterSchema = z.looseObject({
  name: z.string().trim().min(1, 'is required'),
  description: z.string().trim().min(1, 'is required'),
  tools: toolList.optional(),
  model: z.string().trim().min(1).optional(),
  voice: voiceModeSchema.optional(),
  delegates_to: toolList.optional(),
  color: z.string().optional(),
  /** Zero (the plan's agent definition): who the agent is, the character it speaks as (its voices keep it or drop it). */
  persona: z.string().trim().min(1).max(500, 'must be at most 500 characters').optional(),
  /** Zero (the plan's agent definition): the field it knows, e.g. `supply-chain security`; clients group and colour agents by it. */
  domain: z.string().trim().min(1).max(100, 'must be at most 100 characters').optional(),
  /** Claude Code: tools taken away (`Write`, `mcp__github__*`), or calls denied by a rule (`Write(src/**)`). */
  disallowedTools: toolList.optional(),
  /** Claude Code: `default`, `acceptEdits`, `bypassPermissions`, `plan` (or `dontAsk`); another value is a warning. */
  permissionMode: z.string().trim().optional(),
  /** Zero: rule → `allow` | `ask` | `deny` (see `tools/policy`). */
  permissions: permissionMapSchema.optional(),
  /** Zero: when this agent's conversations are compacted (overrides the deployment's `ZERO_COMPACT_*`). */
  compaction: compactionSettingsSchema.optional(),
  /** Claude Code: how hard the agent thinks (`low`, `medium`, `high`): an extended-thinking budget. */
  effort: z.enum(['low', 'medium', 'high']).optional(),
  /** Zero: extended thinking with an explicit budget, or `false` to keep it off whatever the deployment says. */
  thinking: thinkingRequestSchema.optional(),
  /** Claude Code: the MCP servers the agent uses, by definition or by the name of a deployment-wide server. */
  mcpServers: agentMcpServersSchema.optional(),
  /** Claude Code: the agent's persistent memory, `user`, `project` or `local` (see `memory/`). */
  memory: z.enum(['user', 'project', 'local'], { error: 'must be "user", "project" or "local"' }).optional(),
  /**
   * Claude Code: the agent's skills, by name (a skill of the person who starts the session) or by id
   * (`skill_…`, or `skill_…@<version>` for one version); see docs/skills.md.
   */
  skills: toolList.optional(),
  /** Zero: the models (or provider names) a step is redone on when this agent's provider is unavailable; replaces `ZERO_MODEL_FALLBACK`. */
  fallback: toolList.optional(),
  /** Zero: how much the agent's tasks need, `light`, `standard` or `heavy`: the deployment's model of that tier (`ZERO_MODEL_TIERS`), when `model` names none. */
  tier: z.enum(MODEL_TIERS, { error: 'must be "light", "standard" or "heavy"' }).optional(),
  /** Zero (ZAP's `SetToolLimit`): tool name → calls per run, e.g. `http_request: 25`; the stricter of it and the deployment's limit wins. */
  tool_limits: toolLimitsSchema.optional(),
  /** Zero (Agent Zero's): the most iterations (model calls) of the tool loop in one run; the stricter of it and `ZERO_MAX_STEPS` wins. */
  max_tool_iterations: maxToolIterationsSchema.optional(),
  /** Zero (Agent Zero's F1–F5): the complexity of this agent's tasks, which picks its tier and whether it uses tools, unless a request says otherwise. */
  complexity: complexityLevelSchema.optional(),
});
export type AgentFrontmatter = z.infer<typeof agentFrontmatterSchema>;

/** One of an agent's skills, as its definition names it. */
export const skillRefSchema = z.object({
  skill_id: z.string().optional(),
  name: z.string().optional(),
  version: z.string().optional(),
  owner: z.string().optional(),
});
export type SkillRef = z.infer<typeof skillRefSchema>;

/** A skill as an agent file's `skills:` names it: `skill_<id>`, `skill_<id>@<version>`, or the skill's name. */
export function skillRefOf(entry: string): SkillRef | undefined {
  const byId = /^(skill_[a-z0-9]{1,64})(?:@(\d{1,20}|latest))?$/.exec(entry);
  if (byId) return { skill_id: byId[1]!, ...(byId[2] && byId[2] !== 'latest' ? { version: byId[2] } : {}) };
  return /^[a-z0-9]+(-[a-z0-9]+)*$/.test(entry) && entry.length <= 64 ? { name: entry } : undefined;
}

export const delegationRuleSchema = z.object({ agent_id: z.string(), when: z.string() });

/** A fully parsed `agents/<id>.md`. */
export const agentDefinitionSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
  name: z.string(),
  description: z.string(),
  /** The file's `color` (Claude Code's field): how clients show the agent. */
  color: z.string().optional(),
  /** The character it speaks as, in the voices that keep one (not `neutral`). */
  persona: z.string().optional(),
  /** The field it knows. */
  domain: z.string().optional(),
  /** Model alias or id, with its provider (`ollama:qwen3`) or not; undefined means the deployment's default. */
  model: z.string().optional(),
  /** Its fallback chain (see `model/router.ts`); absent: the deployment's. */
  fallback: z.array(z.string()).optional(),
  /** Its tier, when its file names one and no model. */
  tier: z.enum(MODEL_TIERS).optional(),
  /**
   * Zero tool names this agent may use, resolved when the file loads: a file
   * without `tools:` inherits every registered tool, as in Claude Code.
   */
  tools: z.array(z.string()),
  /** Tools the file names that Zero does not have (`Bash`, `Edit`, `mcp__…`), each with the reason. */
  unavailable_tools: z.array(z.object({ name: z.string(), reason: z.string() })),
  role: z.string(),
  capabilities: z.array(z.string()),
  process: z.string(),
  knowledge: z.array(z.string()),
  data_sources: z.array(z.string()),
  delegation: z.array(delegationRuleSchema),
  voices: z.partialRecord(voiceModeSchema, z.string()),
  default_voice: voiceModeSchema,
  /** The file's permission rules: its `permissions:` map, and `disallowedTools` as `deny` (absent: none). */
  permissions: permissionMapSchema.optional(),
  /** Claude Code's `permissionMode` (absent: `default`). */
  permission_mode: permissionModeSchema.optional(),
  /** When its conversations are compacted (absent: the deployment's settings). */
  compaction: compactionSettingsSchema.optional(),
  /** Its per-tool call limits (`tool_limits:`), tightening the deployment's. */
  tool_limits: toolLimitsSchema.optional(),
  /** Its cap on the tool loop's iterations (`max_tool_iterations:`). */
  max_tool_iterations: z.number().int().positive().optional(),
  /** The complexity of its tasks (`complexity:`), for tier routing. */
  complexity: complexityLevelSchema.optional(),
  /** Its extended-thinking budget in tokens (from `effort` or `thinking:`); 0: off; absent: the deployment's default. */
  thinking_budget: z.number().int().nonnegative().optional(),
  /**
   * The MCP servers the file defines or names, and the MCP tools its `tools:` grants
   * (`mcp__<server>__<tool>` names and globs; all of them without `tools:`) less its
   * `disallowedTools`. The tools themselves are listed by the servers when a run starts.
   */
  mcp: z
    .object({
      servers: z.record(z.string(), mcpServerConfigSchema),
      references: z.array(z.string()),
      tools: z.array(z.string()),
      disallowed: z.array(z.string()),
    })
    .optional(),
  /**
   * The memory store the agent keeps (`memory:`; absent: none): the user's own, or the session's
   * project's. Claude Code's `local` (this person, this project, not shared) is the user's store here.
   */
  memory: z.enum(['user', 'project']).optional(),
  /**
   * The agent's skills (see `skills/session-skills.ts` in the runtime): by id and version, or by
   * name (the newest of that name). `owner`: whose skill it must be (a managed agent's owner, who
   * attached it); absent: the person who started the session.
   */
  skills: z.array(skillRefSchema).optional(),
  /** Everything in the body outside the known sections, kept for the prompt. */
  extra: z.string(),
  /** Non-fatal remarks, e.g. a Claude Code tool Zero does not provide. */
  warnings: z.array(z.string()),
});
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

/** A file that could not be loaded, named with the field at fault. */
export interface AgentLoadError {
  file: string;
  field: string;
  message: string;
}
