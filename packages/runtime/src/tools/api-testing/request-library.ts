import type { OutboundOptions } from '@zero/agent/net/outbound';
import { mapLimit } from '../../projects/project-store';
import type { ToolContext } from '../tool';
import { extractErrorContext, linesAround } from './error-context';
import { responseSnapshotSchema, type ResponseSnapshot } from './response-snapshot';
import { REQUESTS_FOLDER, requestNameOf, requestPath, toHttpInput, type SavedRequest, type SavedRequestError } from './saved-request';
import { parseSavedRequest } from './saved-request-file';
import { mapFramesToProject, parseStackTrace } from './stack-trace';

/** Most saved requests one project's library lists. */
export const MAX_LIBRARY = 200;
/** Most bytes of one saved request's file. */
const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_SNAPSHOT_BYTES = 2 * 1024 * 1024;
/** Most bytes of a source file read for a frame's context lines. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

export type LibraryEntry = { name: string; path: string; request: SavedRequest } | { name: string; path: string; error: SavedRequestError };

/** The project's saved requests, each parsed or with the error that names its file and field. */
export async function listLibrary(context: ToolContext, projectId: string): Promise<{ entries: LibraryEntry[]; more: number }> {
  const paths = (await context.projects.list(projectId, 'files', REQUESTS_FOLDER)).map((o) => o.path).filter((p) => requestNameOf(p) !== undefined).sort();
  const entries = await mapLimit(paths.slice(0, MAX_LIBRARY), 16, async (path): Promise<LibraryEntry> => {
    const name = requestNameOf(path)!;
    const read = await readRequestFile(context, projectId, path);
    return read.ok ? { name, path, request: read.request } : { name, path, error: read.error };
  });
  return { entries, more: Math.max(0, paths.length - MAX_LIBRARY) };
}

/** One saved request by name (`requests/<name>.yaml`, or `.yml`); an error names the file and field at fault. */
export async function loadRequest(
  context: ToolContext,
  projectId: string,
  name: string,
): Promise<{ ok: true; request: SavedRequest; path: string } | { ok: false; message: string }> {
  for (const path of [requestPath(name), `${REQUESTS_FOLDER}/${name}.yml`]) {
    const read = await readRequestFile(context, projectId, path);
    if (read.ok) return { ok: true, request: read.request, path };
    if (read.error.field !== '(missing)') return { ok: false, message: describeRequestError(read.error) };
  }
  return { ok: false, message: `No saved request "${name}" in project ${projectId} (no ${requestPath(name)}). list_requests shows the library.` };
}

/** A request file's error as one line: `requests/a.yaml: field url: must be an absolute URL`. */
export function describeRequestError(error: SavedRequestError): string {
  return `${error.file}: ${error.field === '(file)' ? '' : `field ${error.field}: `}${error.message}`;
}

async function readRequestFile(context: ToolContext, projectId: string, path: string) {
  const file = await context.projects.read(projectId, 'files', path, MAX_REQUEST_BYTES + 1, context.signal);
  if (!file) return { ok: false as const, error: { file: path, field: '(missing)', message: 'no such file' } };
  if (file.size > MAX_REQUEST_BYTES) return { ok: false as const, error: { file: path, field: '(file)', message: `is ${file.size} bytes; a saved request is at most ${MAX_REQUEST_BYTES}` } };
  return parseSavedRequest(path, new TextDecoder().decode(file.body));
}

/** Sends a saved request through http_request's code (its checks, secret rules and outbound guard). */
export async function sendSavedRequest(request: SavedRequest, outbound: OutboundOptions, context: ToolContext) {
  const { exchangeHttpRequest } = await import('../http-request-send');
  return exchangeHttpRequest(toHttpInput(request), outbound, context.signal, context.idempotencyKey);
}

/** A stored baseline or snapshot; undefined when there is none, an error message when it cannot be read. */
export async function readSnapshot(context: ToolContext, projectId: string, path: string): Promise<ResponseSnapshot | undefined | { error: string }> {
  const file = await context.projects.read(projectId, 'files', path, MAX_SNAPSHOT_BYTES, context.signal);
  if (!file) return undefined;
  try {
    const parsed = responseSnapshotSchema.safeParse(JSON.parse(new TextDecoder().decode(file.body)));
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    return { error: `${path}: field ${issue.path.join('.') || '(file)'}: ${issue.message}` };
  } catch (error) {
    return { error: `${path}: not JSON (${(error as Error).message})` };
  }
}

/** Writes one text file into the project's tree (a saved request, a baseline, a snapshot). */
export async function writeProjectText(context: ToolContext, projectId: string, path: string, text: string): Promise<void> {
  await context.projects.putFiles(projectId, [{ path, body: new TextEncoder().encode(text) }]);
}

/**
 * ParseStackTrace and ExtractErrorContext over an error body, as lines for the model: the error's
 * message, type and fields, then each frame with the project file it is and `radius` lines around
 * it. Empty when the body holds neither a trace nor a readable error.
 */
export async function explainError(context: ToolContext, projectId: string | undefined, body: string, radius: number): Promise<string[]> {
  const error = extractErrorContext(body);
  const lines: string[] = [];
  if (error.message) lines.push(`error message: ${error.message}`);
  if (error.type) lines.push(`error type: ${error.type}`);
  for (const field of error.fields) lines.push(`field ${field.field}: ${field.message}`);
  const frames = parseStackTrace(body);
  if (frames.length === 0) return lines;
  const paths = projectId ? (await context.projectFiles.manifest(projectId)).files.map((f) => f.path) : [];
  const mapped = mapFramesToProject(frames, paths);
  const inProject = mapped.filter((f) => f.projectPath).length;
  lines.push(`stack trace: ${frames.length} frame${frames.length === 1 ? '' : 's'}, ${inProject} in the project's files${projectId ? '' : ' (no project selected)'}`);
  const sources = new Map<string, Promise<string | undefined>>();
  for (const [i, frame] of mapped.entries()) {
    const where = `${frame.function ? ` in ${frame.function}` : ''} (${frame.language})`;
    if (!frame.projectPath || !projectId) {
      lines.push(`${i + 1}. ${frame.file}:${frame.line}${where}: ${frame.outside === 'library' ? 'library or runtime code' : 'not a file of the project'}`);
      continue;
    }
    lines.push(`${i + 1}. ${frame.projectPath}:${frame.line}${where}${frame.projectPath !== frame.file ? ` [trace: ${frame.file}]` : ''}`);
    const path = frame.projectPath;
    if (!sources.has(path)) sources.set(path, context.projects.read(projectId, 'files', path, MAX_SOURCE_BYTES, context.signal).then((f) => (f ? new TextDecoder().decode(f.body) : undefined)));
    const text = await sources.get(path)!;
    const around = text === undefined ? undefined : linesAround(text, frame.line, radius);
    lines.push(around ?? `   (line ${frame.line} is past the end of ${path}: the deployed code differs from the project's files)`);
  }
  return lines;
}

