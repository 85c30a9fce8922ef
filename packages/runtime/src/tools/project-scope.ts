import * as z from 'zod';
import { ZeroError } from '@zero/agent/errors';
import { projectIdSchema } from '@zero/agent/wire';
import { PathError } from '../projects/paths';
import type { Role } from '../store/records';
import type { ToolContext, ToolOutput } from './tool';

/** The optional `project_id` every project tool accepts; the session's project is the default. */
export const projectIdInput = z
  .string()
  .max(200)
  .optional()
  .describe('The project, "owner/repo". Defaults to the project this conversation is bound to.');

/**
 * Runs a project tool's body with its project resolved and the session's
 * access checked (`role`: viewer to read, editor to write), turning refused
 * paths, projects the session may not use, missing projects and store errors
 * into error results the model sees. Every project tool enters here.
 */
export async function inProject(
  projectId: string | undefined,
  context: ToolContext,
  body: (projectId: string) => Promise<ToolOutput>,
  role: Role = 'viewer',
): Promise<ToolOutput> {
  const id = projectId ?? context.projectId;
  if (!id) return { content: 'No project is selected: pass project_id ("owner/repo"). list_projects shows the projects.', is_error: true };
  const parsed = projectIdSchema.safeParse(id);
  if (!parsed.success) return { content: `project_id: "${id}" ${parsed.error.issues[0]?.message ?? 'is not a project id'}`, is_error: true };
  try {
    await context.projectAccess.requireForSession(context.sessionId, parsed.data, role);
    return await body(parsed.data);
  } catch (error) {
    return toolError(error);
  }
}

/** A refused path or a ZeroError as an error result; anything else is rethrown for the registry to report. */
export function toolError(error: unknown): ToolOutput {
  if (PathError.isInstance(error)) return { content: `path refused: ${error.message}.`, is_error: true };
  if (ZeroError.isInstance(error)) return { content: error.message, is_error: true };
  throw error;
}

/** True when the bytes look binary (a NUL byte in the first 8 KB, as git decides). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}
