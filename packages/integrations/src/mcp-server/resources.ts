import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListResourceTemplatesRequestSchema, ListResourcesRequestSchema, McpError, ReadResourceRequestSchema, type Resource } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { ZeroError } from '@zero/agent/errors';
import { PathError, normalizeProjectPath } from '@zero/runtime/projects/paths';
import { contentTypeOf } from '@zero/runtime/projects/project-store';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import { looksBinary } from '@zero/runtime/tools/project-scope';
import { projectIdSchema } from '@zero/agent/wire';

/** Resources per `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 100;
/** The largest file a resource read returns (as the project API's own reads). */
const MAX_READ_BYTES = 20 * 1024 * 1024;
/** MCP's code for a resource that does not exist (or that the caller may not see). */
const RESOURCE_NOT_FOUND = -32002;

const AREAS = ['files', 'reports'] as const;
type Area = (typeof AREAS)[number];

/** `zero://projects/<owner>/<repo>/<files|reports>/<path>`, each segment percent-encoded. */
export function resourceUri(projectId: string, area: Area, path: string): string {
  const encode = (s: string) => s.split('/').map(encodeURIComponent).join('/');
  return `zero://projects/${encode(projectId)}/${area}/${encode(path)}`;
}

const URI = /^zero:\/\/projects\/([^/]+)\/([^/]+)\/(files|reports)\/(.+)$/;

/** A resource URI as project, area and path, each checked as the project API checks them; an MCP error naming the part otherwise. */
function parseUri(uri: string): { projectId: string; area: Area; path: string } {
  const match = URI.exec(uri);
  if (!match) throw new McpError(ErrorCode.InvalidParams, `uri: "${uri}" is not a Zero resource; they look like zero://projects/<owner>/<repo>/files/<path>`);
  const [, owner, repo, area, path] = match as unknown as [string, string, string, Area, string];
  let decoded: string[];
  try {
    decoded = [owner, repo, path].map(decodeURIComponent);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, 'uri: holds a malformed percent escape');
  }
  const projectId = projectIdSchema.safeParse(`${decoded[0]}/${decoded[1]}`);
  if (!projectId.success) throw new McpError(ErrorCode.InvalidParams, `uri: the project ${projectId.error.issues[0]?.message ?? 'is not valid'}`);
  try {
    return { projectId: projectId.data, area, path: normalizeProjectPath(decoded[2]!) };
  } catch (error) {
    if (PathError.isInstance(error)) throw new McpError(ErrorCode.InvalidParams, `uri: path refused: ${error.message}`);
    throw error;
  }
}

/** Where a page of the listing starts: after this path of this area of this project. */
const cursorSchema = z.object({ project: projectIdSchema, area: z.enum(AREAS), after: z.string().max(4096) });
type Cursor = z.infer<typeof cursorSchema>;

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decodeCursor(cursor: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const checked = cursorSchema.safeParse(parsed);
  if (!checked.success) throw new McpError(ErrorCode.InvalidParams, 'cursor: not a cursor this server gave; start again without one');
  return checked.data;
}

/**
 * Project files and reports as MCP resources, under the project API's rules:
 * a caller lists and reads the projects they have a role in, and of their
 * reports those of sessions they are a member of. The listing walks
 * projects, then areas, then paths in order, a page at a time: a cursor is
 * where the last page stopped, so any instance can carry it on.
 */
export function registerResources(server: Server, deps: ChatDeps, caller: AuthUser) {
  const { projects, projectAccess: access } = deps;

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: AREAS.map((area) => ({
      uriTemplate: `zero://projects/{owner}/{repo}/${area}/{+path}`,
      name: `project-${area === 'files' ? 'file' : 'report'}`,
      title: area === 'files' ? 'A file of a project' : 'A report an agent wrote in a project',
      description: `One of a Zero project's ${area}, by path (owner/repo as in list_projects).`,
    })),
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const cursor = request.params?.cursor === undefined ? undefined : decodeCursor(request.params.cursor);
    const visible = await access.visibleTo(caller);
    const ids = (visible === 'all' ? (await projects.listProjects()).map((p) => p.id) : [...visible.keys()]).sort();
    const resources: Resource[] = [];
    for (const projectId of ids) {
      if (cursor && projectId < cursor.project) continue;
      for (const area of AREAS) {
        if (cursor && projectId === cursor.project && AREAS.indexOf(area) < AREAS.indexOf(cursor.area)) continue;
        let listed = (await projects.list(projectId, area)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        if (cursor && projectId === cursor.project && area === cursor.area) listed = listed.filter((o) => o.path > cursor.after);
        if (area === 'reports' && listed.length) {
          const readable = await access.readableReports(caller, projectId, listed.map((o) => o.path));
          listed = listed.filter((o) => readable.has(o.path));
        }
        for (const object of listed) {
          if (resources.length === RESOURCE_PAGE_SIZE) {
            const last = resources.at(-1)!;
            return { resources, nextCursor: encodeCursor(parseUriUnchecked(last.uri)) };
          }
          resources.push({
            uri: resourceUri(projectId, area, object.path),
            name: object.path,
            title: `${projectId}: ${area === 'reports' ? 'report ' : ''}${object.path}`,
            description: `${area === 'files' ? 'File' : 'Report'} of project ${projectId}`,
            mimeType: contentTypeOf(object.path),
            size: object.size,
          });
        }
      }
    }
    return { resources };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { projectId, area, path } = parseUri(request.params.uri);
    const notFound = () => new McpError(RESOURCE_NOT_FOUND, `no ${area === 'files' ? 'file' : 'report'} "${path}" in project "${projectId}" that you can read`, { uri: request.params.uri });
    try {
      await access.require(caller, projectId, 'viewer');
    } catch (error) {
      // No role: the same answer as for a project that does not exist.
      if (ZeroError.isInstance(error)) throw notFound();
      throw error;
    }
    const hidden = area === 'reports' && !(await access.canReadReport(caller, projectId, path));
    const file = hidden ? undefined : await projects.read(projectId, area, path, MAX_READ_BYTES);
    if (!file) throw notFound();
    if (file.truncated) throw new McpError(ErrorCode.InvalidParams, `uri: "${path}" is ${file.size} bytes, more than the ${MAX_READ_BYTES} a resource read returns`);
    const mimeType = file.contentType ?? contentTypeOf(path);
    const uri = request.params.uri;
    if (looksBinary(file.body)) return { contents: [{ uri, mimeType, blob: Buffer.from(file.body).toString('base64') }] };
    return { contents: [{ uri, mimeType, text: new TextDecoder('utf-8').decode(file.body) }] };
  });
}

/** The cursor for a URI this server just built. */
function parseUriUnchecked(uri: string): Cursor {
  const { projectId, area, path } = parseUri(uri);
  return { project: projectId, area, after: path };
}
