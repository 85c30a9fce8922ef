import { MAX_KEY_BYTES, PathError, normalizeProjectPath, projectKey } from '../projects/paths';
import { contentTypeOf } from '../projects/project-store';
import { inProject, toolError } from './project-scope';
import type { ToolContext, ToolOutput } from './tool';

/**
 * A file in the writable area: a report of the project (`reports/<inner>`,
 * claimed by this session) or an artifact of the session (`artifacts/<inner>`).
 * Nothing else is writable: project source files are read-only.
 */
export interface WritableFile {
  /** The path as tools take it, e.g. "reports/summary.md". */
  path: string;
  area: 'reports' | 'artifacts';
  /** The S3 key the file lives at. */
  key: string;
  /** Set for a report. */
  projectId?: string;
}

/**
 * Runs a tool's body on a file of the writable area: the path normalised like
 * every project path, a report's project resolved with editor access and the
 * report claimed for this session (another session's report is refused).
 * Refusals and store errors become error results.
 */
export async function inWritableArea(
  tool: string,
  path: string,
  projectId: string | undefined,
  context: ToolContext,
  body: (file: WritableFile) => Promise<ToolOutput>,
): Promise<ToolOutput> {
  try {
    const checked = normalizeProjectPath(path);
    const [area, ...rest] = checked.split('/');
    if (rest.length === 0 || (area !== 'reports' && area !== 'artifacts')) {
      throw new PathError(`${tool} works only on files under "reports/" or "artifacts/" (project source files are read-only), not "${checked}"`);
    }
    const inner = rest.join('/');
    if (area === 'artifacts') {
      const key = `sessions/${context.sessionId}/artifacts/${inner}`;
      if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new PathError(`the path is too long (the key would be over ${MAX_KEY_BYTES} bytes)`);
      return await body({ path: checked, area, key });
    }
    return await inProject(
      projectId,
      context,
      async (id) => {
        // Checked, then claimed before it is touched: a report another session wrote stays as it is.
        const key = projectKey(id, 'reports', inner);
        await context.projectAccess.claimReport(context.sessionId, id, inner);
        return body({ path: checked, area, key, projectId: id });
      },
      'editor',
    );
  } catch (error) {
    return toolError(error);
  }
}

/** A writable file's text, or undefined when there is none. */
export function readWritable(context: ToolContext, file: WritableFile): Promise<string | undefined> {
  return context.artifacts.getText(file.key);
}

/** Stores a writable file and records it as the session's artifact; answers with what was written. */
export async function writeWritable(context: ToolContext, file: WritableFile, content: string): Promise<string> {
  await context.artifacts.put(file.key, content, contentTypeOf(file.path));
  const bytes = Buffer.byteLength(content);
  await context.sessions.recordArtifact(context.sessionId, {
    key: file.key,
    path: file.path,
    ...(file.projectId ? { project_id: file.projectId } : {}),
    bytes,
    run_id: context.runId,
    tool_call_id: context.toolCallId,
    at: new Date().toISOString(),
  });
  return `${bytes} bytes to ${file.path}${file.projectId ? ` in project ${file.projectId}` : ''}`;
}

/** Deletes a writable file and forgets it as the session's artifact. */
export async function deleteWritable(context: ToolContext, file: WritableFile): Promise<void> {
  await context.artifacts.delete(file.key);
  await context.sessions.forgetArtifact(context.sessionId, file.key);
}
