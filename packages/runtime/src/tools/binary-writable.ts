/** Where render_report stores the bytes it renders: the writable area (see writable-area.ts for the text tools), for a file written whole. */
import { MAX_KEY_BYTES, PathError, normalizeProjectPath, projectKey } from '../projects/paths';
import type { ToolContext } from './tool';

/** A path in the writable area: the project's `reports/` or the session's `artifacts/`. */
export interface WritablePath {
  area: 'reports' | 'artifacts';
  /** The path inside the area, e.g. `audit.pdf`. */
  inner: string;
  /** The normalised path as the model wrote it, e.g. `reports/audit.pdf`. */
  path: string;
}

/** Normalises a tool's output path (the file tools' normaliser) and checks it is in the writable area; throws PathError otherwise. */
export function writablePath(path: string, tool: string): WritablePath {
  const checked = normalizeProjectPath(path);
  const [area, ...rest] = checked.split('/');
  if (rest.length === 0 || (area !== 'reports' && area !== 'artifacts')) {
    throw new PathError(`${tool} writes only under "reports/" or "artifacts/", not "${checked}"`);
  }
  return { area, inner: rest.join('/'), path: checked };
}

/**
 * Stores a file in the writable area and lists it among the session's
 * artifacts. A report is claimed for the session before it is written, so a
 * report another session wrote stays as it is. Returns the stored key.
 */
export async function storeWritable(
  context: ToolContext,
  target: WritablePath,
  body: Uint8Array,
  contentType: string,
  projectId?: string,
): Promise<string> {
  let key: string;
  if (target.area === 'reports') {
    if (!projectId) throw new PathError('a report needs a project');
    projectKey(projectId, 'reports', target.inner);
    await context.projectAccess.claimReport(context.sessionId, projectId, target.inner);
    key = await context.projects.putReport(projectId, target.inner, body, contentType);
  } else {
    key = `sessions/${context.sessionId}/artifacts/${target.inner}`;
    if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new PathError(`the path is too long (the key would be over ${MAX_KEY_BYTES} bytes)`);
    await context.artifacts.put(key, body, contentType);
  }
  await context.sessions.recordArtifact(context.sessionId, {
    key,
    path: target.path,
    ...(target.area === 'reports' ? { project_id: projectId } : {}),
    bytes: body.byteLength,
    run_id: context.runId,
    tool_call_id: context.toolCallId,
    at: new Date().toISOString(),
  });
  return key;
}
