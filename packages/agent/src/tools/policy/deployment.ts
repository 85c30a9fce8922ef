import * as z from 'zod';
import { describeZodError } from '../../errors';
import { permissionDecisionSchema, permissionMapSchema } from '../../wire';

/**
 * The deployment's defaults (`ZERO_PERMISSIONS`, JSON): a decision for
 * read-only tools (default `allow`), one for tools with side effects
 * (default `ask`: a person approves them), and rules.
 */
export const deploymentPermissionsSchema = z.strictObject({
  read_only: permissionDecisionSchema.optional(),
  side_effects: permissionDecisionSchema.optional(),
  /** Tools of MCP servers (default `ask`): a server's own description of its tools is not taken on trust. */
  mcp: permissionDecisionSchema.optional(),
  rules: permissionMapSchema.optional(),
});
export type DeploymentPermissions = z.infer<typeof deploymentPermissionsSchema>;

/** Reads `ZERO_PERMISSIONS`; throws an error naming the field when it is malformed, so a deployment does not start with a policy it did not mean. */
export function permissionsFromEnv(raw: string | undefined): DeploymentPermissions | undefined {
  if (!raw?.trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('ZERO_PERMISSIONS must be JSON, e.g. {"side_effects": "ask", "rules": {"write_file(reports/**)": "allow"}}');
  }
  const parsed = deploymentPermissionsSchema.safeParse(value);
  if (!parsed.success) throw new Error(`ZERO_PERMISSIONS: ${describeZodError(parsed.error).message}`);
  return parsed.data;
}
