import * as z from 'zod';

/** What the policy decides for a tool call: run it, ask a person first, or never run it. */
export const permissionDecisionSchema = z.enum(['allow', 'ask', 'deny']);
export type PermissionDecision = z.infer<typeof permissionDecisionSchema>;

/**
 * A permission rule: a tool name or glob (`write_file`, `mcp__github__*`),
 * optionally followed by a glob on the call's input in parentheses
 * (`write_file(reports/**)`: the path a write_file call names). Claude Code's
 * tool names (`Write(reports/**)`) are accepted and mapped to Zero's.
 */
export const PERMISSION_RULE = /^[A-Za-z0-9_*?{},[\]!.-]+(?:\(.+\))?$/s;

export const permissionRuleSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(PERMISSION_RULE, 'must be a tool name or glob, optionally with an input glob in parentheses, e.g. "write_file(reports/**)"');

/** Rules and their decisions: Zero's `permissions:` in an agent file, a session's overrides, the deployment's rules. */
export const permissionMapSchema = z
  .record(permissionRuleSchema, permissionDecisionSchema)
  .refine((map) => Object.keys(map).length <= 100, 'must hold at most 100 rules');
export type PermissionMap = z.infer<typeof permissionMapSchema>;

/** Claude Code's `permissionMode` of a subagent. */
export const permissionModeSchema = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk']);
export type PermissionMode = z.infer<typeof permissionModeSchema>;

/** Where a decision came from, most specific first. */
export const permissionLevelSchema = z.enum(['session', 'agent', 'deployment']);

/** One tool's policy for an agent: the decision (the strictest layer's), which policy gave it, and every layer's input rules on the tool. */
export const toolPolicySchema = z.object({
  decision: permissionDecisionSchema,
  level: permissionLevelSchema,
  /** The policy that decided, e.g. `agent permissions "write_file"`. */
  source: z.string(),
  /** Rules on the input (`write_file(reports/**)`) that speak for calls they match, by layer (session, agent, deployment). */
  input_rules: z.array(z.object({ rule: z.string(), decision: permissionDecisionSchema, level: permissionLevelSchema })),
});
export type ToolPolicy = z.infer<typeof toolPolicySchema>;

/** `PUT /sessions/:id/permissions`: the session's overrides, replacing the ones it had (`{}` clears them). */
export const sessionPermissionsRequestSchema = z.strictObject({ permissions: permissionMapSchema });

/** A session's overrides, who set them, and the policy of each of its agent's tools with them applied. */
export const sessionPermissionsSchema = z.object({
  permissions: permissionMapSchema,
  updated_by: z.string().optional(),
  updated_at: z.string().optional(),
  agent_id: z.string(),
  effective: z.record(z.string(), toolPolicySchema),
});

/** A rule's parts: the tool name or glob, and the input glob in parentheses if it has one. */
export function splitPermissionRule(rule: string): { tool: string; input?: string } {
  const open = rule.indexOf('(');
  if (open < 0 || !rule.endsWith(')')) return { tool: rule };
  return { tool: rule.slice(0, open), input: rule.slice(open + 1, -1) };
}

const STRICTNESS: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

/** The stricter of two decisions: deny over ask over allow. */
export const stricter = (a: PermissionDecision, b: PermissionDecision): PermissionDecision => (STRICTNESS[a] >= STRICTNESS[b] ? a : b);
