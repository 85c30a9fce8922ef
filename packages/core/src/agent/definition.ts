import * as z from 'zod';
import { permissionMapSchema, permissionModeSchema, voiceModeSchema } from '../wire';

/**
 * Claude Code subagent tool names mapped to Zero's tools, so that a Claude Code
 * file (`tools: Read, Grep, Glob`) loads as it is.
 */
export const TOOL_ALIASES: Record<string, string> = {
  Read: 'read_file',
  Grep: 'grep',
  Glob: 'glob',
  Write: 'write_file',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  ListProjects: 'list_projects',
  GetAnalysis: 'get_analysis',
  Task: 'delegate_agent',
};

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
  /** Claude Code: tools taken away (`Write`, `mcp__github__*`), or calls denied by a rule (`Write(src/**)`). */
  disallowedTools: toolList.optional(),
  /** Claude Code: `default`, `acceptEdits`, `bypassPermissions`, `plan` (or `dontAsk`); another value is a warning. */
  permissionMode: z.string().trim().optional(),
  /** Zero: rule → `allow` | `ask` | `deny` (see `tools/policy`). */
  permissions: permissionMapSchema.optional(),
});
export type AgentFrontmatter = z.infer<typeof agentFrontmatterSchema>;

export const delegationRuleSchema = z.object({ agent_id: z.string(), when: z.string() });

/** A fully parsed `agents/<id>.md`. */
export const agentDefinitionSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
  name: z.string(),
  description: z.string(),
  /** The file's `color` (Claude Code's field): how clients show the agent. */
  color: z.string().optional(),
  /** Model alias or id; undefined means the deployment's default. */
  model: z.string().optional(),
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
