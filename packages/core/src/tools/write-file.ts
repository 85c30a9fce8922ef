import * as z from 'zod';
import { MAX_KEY_BYTES, PathError, normalizeProjectPath, projectKey } from '../projects/paths';
import { contentTypeOf } from '../projects/project-store';
import { inProject, projectIdInput, toolError } from './project-scope';
import { defineTool, type ToolContext } from './tool';

const MAX_CHARS = 1_000_000;

/** Writes a report into the project's `reports/` or a file into the session's artifacts; nothing else is writable. */
export const writeFileTool = defineTool({
  name: 'write_file',
  readOnly: false,
  // `write_file(reports/**)`; a path the tool would refuse never reaches a rule (it is refused either way).
  policySubject: (input) => input.path,
  description:
    'Save a text file you produced. path must start with "reports/" (stored with the project, e.g. "reports/dependency-audit.md") ' +
    'or "artifacts/" (stored with this conversation, no project needed). Any other path is refused: project source files are read-only. ' +
    'An existing file at the same path is replaced.',
  input: z.object({
    path: z.string().min(1).max(1024).describe('"reports/<name>" or "artifacts/<name>", e.g. "reports/summary.md".'),
    content: z.string().max(MAX_CHARS).describe('The whole file, as text.'),
    project_id: projectIdInput,
  }),
  async execute({ path, content, project_id }, context) {
    try {
      const checked = normalizeProjectPath(path);
      const [area, ...rest] = checked.split('/');
      if (rest.length === 0 || (area !== 'reports' && area !== 'artifacts')) {
        return { content: `path refused: write_file writes only under "reports/" or "artifacts/", not "${checked}".`, is_error: true };
      }
      const inner = rest.join('/');
      if (area === 'artifacts') return await save(context, `sessions/${context.sessionId}/artifacts/${inner}`, checked, content);
      return await inProject(
        project_id,
        context,
        async (projectId) => {
          // Checked, then claimed before it is written: a report another session wrote stays as it is.
          projectKey(projectId, 'reports', inner);
          await context.projectAccess.claimReport(context.sessionId, projectId, inner);
          const key = await context.projects.putReport(projectId, inner, content);
          return record(context, key, checked, content, projectId);
        },
        'editor',
      );
    } catch (error) {
      return toolError(error);
    }
  },
});

async function save(context: ToolContext, key: string, path: string, content: string) {
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new PathError(`the path is too long (the key would be over ${MAX_KEY_BYTES} bytes)`);
  await context.artifacts.put(key, content, contentTypeOf(path));
  return record(context, key, path, content);
}

async function record(context: ToolContext, key: string, path: string, content: string, projectId?: string) {
  const bytes = Buffer.byteLength(content);
  await context.sessions.recordArtifact(context.sessionId, {
    key,
    path,
    ...(projectId ? { project_id: projectId } : {}),
    bytes,
    run_id: context.runId,
    tool_call_id: context.toolCallId,
    at: new Date().toISOString(),
  });
  return `Wrote ${bytes} bytes to ${path}${projectId ? ` in project ${projectId}` : ''}.`;
}
