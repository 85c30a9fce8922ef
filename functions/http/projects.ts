import type { Readable } from 'node:stream';
import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { DEFAULT_ARCHIVE_LIMITS, extractTarGz, type ArchiveLimits } from '@zero/runtime/projects/archive';
import { PathError, normalizeProjectFolder, projectKey, type ProjectArea } from '@zero/runtime/projects/paths';
import { StagedUploads, type StagedUploadTimes } from '@zero/runtime/projects/staged-uploads';
import { ZeroError, invalidField, notFound, tooLarge } from '@zero/agent/errors';
import { contentTypeOf } from '@zero/runtime/projects/project-store';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import type { GitHubSettings } from '@zero/integrations/github/settings';
import type { ProjectMember } from '@zero/runtime/store/items/project-member';
import {
  analysisDocumentSchema,
  analysisStoredSchema,
  archiveQuerySchema,
  archiveUploadSchema,
  fileUploadSchema,
  hydrateRequestSchema,
  hydrateResponseSchema,
  listProjectFilesQuerySchema,
  memberRequestSchema,
  projectDetailSchema,
  projectFilesSchema,
  projectIdSchema,
  projectListSchema,
  projectMemberResponseSchema,
  projectMembersResponseSchema,
  projectReportsSchema,
  scannerSchema,
  uploadIdSchema,
  uploadRequestSchema,
  uploadTicketSchema,
  userIdSchema,
} from '@zero/agent/wire';
import { body, describe, json, param, query } from './declare';
import type { Env } from './env';

/** Request limits of the project API, documented in docs/api/projects.md. */
export interface ProjectApiLimits {
  /** One uploaded file, and an analysis document. */
  maxFileBytes: number;
  /** A compressed archive as sent. */
  maxArchiveBytes: number;
  archive: ArchiveLimits;
  /** How long an upload's URL and the upload itself last (`POST …/uploads`). */
  stagedUploads?: StagedUploadTimes;
}

export const DEFAULT_PROJECT_API_LIMITS: ProjectApiLimits = {
  maxFileBytes: 5 * 1024 * 1024,
  maxArchiveBytes: 50 * 1024 * 1024,
  archive: DEFAULT_ARCHIVE_LIMITS,
};

/** The path parameters of a project route: `:owner/:repo` as one `project_id`, then the route's own. */
function projectParams<S extends z.ZodRawShape>(extra: S) {
  return z.preprocess((raw) => {
    const { owner, repo, ...rest } = raw as Record<string, string>;
    return { project_id: `${owner}/${repo}`, ...rest };
  }, z.object({ project_id: projectIdSchema, ...extra }));
}
const inProject = projectParams({});

/**
 * `/projects` routes: list projects, upload one file or a `.tar.gz` tree,
 * list and read files and reports, put and get analysis documents, manage
 * members. Project ids are `owner/repo`, so they take two path segments.
 * Every route checks the caller's role through ProjectAccess: viewers read,
 * editors write (the first writer of a new project becomes its owner),
 * owners manage members; administrators may do everything.
 */
export function projectRoutes(deps: Pick<ChatDeps, 'projects' | 'projectAccess'> & { github: GitHubSettings }, limits: ProjectApiLimits = DEFAULT_PROJECT_API_LIMITS) {
  const { projects, projectAccess: access } = deps;
  const api = new Hono<Env>();
  api.get('/projects', describe({ summary: 'The projects the caller can see, with their role', responses: { 200: projectListSchema } }), async (c) => {
    const visible = await access.visibleTo(c.get('user'));
    const listed = await projects.listProjects(visible === 'all' ? undefined : [...visible.keys()]);
    return c.json({ projects: listed.map((p) => ({ ...p, role: visible === 'all' ? 'owner' : visible.get(p.id) })) });
  });

  api.get('/projects/:owner/:repo', describe({ summary: 'A project and its analyses', responses: { 200: projectDetailSchema } }), param(inProject), async (c) => {
    const id = c.req.valid('param').project_id;
    const role = await access.require(c.get('user'), id, 'viewer');
    return c.json({ project: await projects.requireProject(id), analyses: await projects.listAnalyses(id), role });
  });

  api.post('/projects/:owner/:repo/archive', describe({ summary: "Upload a .tar.gz of the project's files (editors)", responses: { 201: archiveUploadSchema } }), body('application/gzip', limits.maxArchiveBytes), param(inProject), query(archiveQuerySchema), async (c) => {
    const id = c.req.valid('param').project_id;
    await access.requireWriter(c.get('user'), id);
    const stream = c.req.raw.body;
    if (!stream) throw new ZeroError('invalid_request', 'the body must be a .tar.gz archive', { field: 'archive' });
    return c.json(await applyArchive(id, stream, c.req.valid('query').strip), 201);
  });

  // Archives over what a request body may carry (6 MB behind a Lambda function URL) go straight to S3.
  const staged = new StagedUploads(projects.artifacts, limits.maxArchiveBytes, limits.stagedUploads);
  api.post('/projects/:owner/:repo/uploads', describe({ summary: 'Start an archive upload straight to S3, for trees too large for a request body (editors)', responses: { 201: uploadTicketSchema } }), param(inProject), json(uploadRequestSchema, { optional: true }), async (c) => {
    const id = c.req.valid('param').project_id;
    const { bytes, strip } = c.req.valid('json');
    if (bytes !== undefined && bytes > limits.maxArchiveBytes) {
      throw new ZeroError('invalid_request', `bytes: an archive may be at most ${limits.maxArchiveBytes} bytes compressed, not ${bytes}`, { field: 'bytes', limit: limits.maxArchiveBytes });
    }
    const user = c.get('user');
    await access.requireWriter(user, id);
    return c.json(await staged.create(id, user.id, strip), 201);
  });

  api.post('/projects/:owner/:repo/uploads/:upload_id/complete', describe({ summary: "Apply an uploaded archive to the project's files, as the archive route does (editors)", responses: { 201: archiveUploadSchema } }), param(projectParams({ upload_id: uploadIdSchema })), async (c) => {
    const { project_id: id, upload_id: uploadId } = c.req.valid('param');
    await access.requireWriter(c.get('user'), id);
    return c.json(await staged.complete(id, uploadId, (archive, strip) => applyArchive(id, archive, strip)), 201);
  });

  /** Extracts an archive under the limits (nothing is written unless all of it passes), then writes the files whose content changed. */
  async function applyArchive(id: string, stream: Readable | ReadableStream<Uint8Array>, strip: number) {
    const archive = await extractTarGz(stream, limits.archive, strip);
    const { project, uploaded, unchanged } = await projects.putTree(id, archive.files);
    return { project, files: archive.files.length, bytes: project.last_upload?.bytes ?? 0, skipped: archive.skipped, skipped_count: archive.skippedCount, uploaded, unchanged };
  }

  // The tree at a commit of the GitHub repository of the same name, under the archive limits (editors).
  api.post('/projects/:owner/:repo/hydrate', describe({ summary: "Make the project's files the GitHub repository's tree at a ref (editors)", responses: { 200: hydrateResponseSchema } }), param(inProject), json(hydrateRequestSchema), async (c) => {
    const id = c.req.valid('param').project_id;
    const { ref, token_ref } = c.req.valid('json');
    const user = c.get('user');
    // Loaded on first use: only hydrates reach GitHub.
    const { githubClient, hydrateProject } = await import('@zero/integrations/github');
    const { client, tokenRef } = githubClient(deps.github, token_ref, id);
    if (tokenRef && !user.admin) {
      // The deployment's GitHub credentials reach repositories the caller may not: with them, a project is
      // hydrated first by an administrator (or a hook), and then again by its editors. Without them, public
      // repositories only, the first writer owns the project as for any upload.
      // Someone without a role gets the 404 any unknown project gets, so the first hydrate never claims it.
      await access.require(user, id, 'editor');
    } else {
      await access.requireWriter(user, id);
    }
    const result = await hydrateProject(projects, client, { projectId: id, repo: id, ref, tokenRef }, { maxArchiveBytes: limits.maxArchiveBytes, archive: limits.archive });
    return c.json(result, 200);
  });

  api.put('/projects/:owner/:repo/files/*', describe({ summary: 'Upload one file (editors)', responses: { 201: fileUploadSchema } }), body('application/octet-stream', limits.maxFileBytes), param(inProject), async (c) => {
    const id = c.req.valid('param').project_id;
    const path = pathOf(c, id, 'files');
    await access.requireWriter(c.get('user'), id);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const meta = await projects.putFiles(id, [{ path, body: bytes, contentType: c.req.header('content-type') || contentTypeOf(path) }]);
    return c.json({ project: meta, path, bytes: bytes.byteLength }, 201);
  });

  for (const area of ['files', 'reports'] as const) {
    const listing = area === 'files' ? projectFilesSchema : projectReportsSchema;
    api.get(`/projects/:owner/:repo/${area}`, describe({ summary: `List a project's ${area}`, responses: { 200: listing } }), param(inProject), query(listProjectFilesQuerySchema), async (c) => {
      const id = c.req.valid('param').project_id;
      const user = c.get('user');
      await access.require(user, id, 'viewer');
      await projects.requireProject(id);
      const { under } = c.req.valid('query');
      const folder = checked(() => {
        const folder = normalizeProjectFolder(under);
        if (folder) projectKey(id, area, folder);
        return folder;
      }, 'under');
      let listed = await projects.list(id, area, folder);
      if (area === 'reports') {
        // A session's reports are listed only to that session's members.
        const readable = await access.readableReports(user, id, listed.map((o) => o.path));
        listed = listed.filter((o) => readable.has(o.path));
      }
      return c.json({ project_id: id, [area]: listed });
    });
    api.get(`/projects/:owner/:repo/${area}/*`, describe({ summary: `Read one of a project's ${area}`, responses: {}, raw: 'application/octet-stream' }), param(inProject), async (c) => {
      const id = c.req.valid('param').project_id;
      const path = pathOf(c, id, area);
      const user = c.get('user');
      await access.require(user, id, 'viewer');
      // A report of a session the caller is not a member of answers like a missing one.
      const hidden = area === 'reports' && !(await access.canReadReport(user, id, path));
      const file = hidden ? undefined : await projects.read(id, area, path, limits.maxFileBytes * 4);
      if (!file) throw notFound(`no ${area === 'files' ? 'file' : 'report'} "${path}" in project "${id}"`, 'path');
      if (file.truncated) throw tooLarge(`"${path}" is ${file.size} bytes, too big to read through the API`, 'path');
      return c.body(file.body as Uint8Array<ArrayBuffer>, 200, { 'content-type': file.contentType ?? contentTypeOf(path), etag: file.etag });
    });
  }

  api.put('/projects/:owner/:repo/analysis/:scanner', describe({ summary: "Put a scanner's analysis document, any JSON object or array (editors)", responses: { 201: analysisStoredSchema } }), body('application/json', limits.maxFileBytes), param(projectParams({ scanner: scannerSchema })), async (c) => {
    const { project_id: id, scanner } = c.req.valid('param');
    await access.requireWriter(c.get('user'), id);
    let document: unknown;
    try {
      document = JSON.parse(await c.req.text());
    } catch {
      throw new ZeroError('invalid_json', 'an analysis document must be JSON', { field: 'body' });
    }
    if (document === null || typeof document !== 'object') throw new ZeroError('invalid_request', 'an analysis document must be a JSON object or array', { field: 'body' });
    await projects.putAnalysis(id, scanner, document);
    return c.json({ project_id: id, scanner }, 201);
  });

  api.get('/projects/:owner/:repo/analysis/:scanner', describe({ summary: "A scanner's analysis document", responses: { 200: analysisDocumentSchema } }), param(projectParams({ scanner: scannerSchema })), async (c) => {
    const { project_id: id, scanner } = c.req.valid('param');
    await access.require(c.get('user'), id, 'viewer');
    const document = await projects.getAnalysis(id, scanner);
    if (document === undefined) throw notFound(`no "${scanner}" analysis for project "${id}"`, 'scanner');
    return c.json(document as object);
  });

  api.get('/projects/:owner/:repo/members', describe({ summary: "A project's members (owners)", responses: { 200: projectMembersResponseSchema } }), param(inProject), async (c) => {
    const id = c.req.valid('param').project_id;
    await access.require(c.get('user'), id, 'owner');
    return c.json({ project_id: id, members: (await access.members.listMembers(id)).map(memberView) });
  });

  // Adds a member or changes their role: owners of the project and administrators.
  api.put('/projects/:owner/:repo/members/:user_id', describe({ summary: "Add a member or change a member's role (owners)", responses: { 200: projectMemberResponseSchema, 201: projectMemberResponseSchema } }), param(projectParams({ user_id: userIdSchema })), json(memberRequestSchema), async (c) => {
    const { project_id: id, user_id: userId } = c.req.valid('param');
    const body = c.req.valid('json');
    const me = c.get('user');
    await access.require(me, id, 'owner');
    const existing = await access.members.getMember(id, userId);
    if (existing) {
      if (existing.role !== body.role) await access.members.changeMember(id, userId, body.role);
    } else {
      const member = { v: 1 as const, project_id: id, user_id: userId, role: body.role, added_at: new Date().toISOString(), added_by: me.id };
      await access.members.putMember(body.name ? { ...member, name: body.name } : member);
    }
    return c.json({ project_id: id, member: memberView((await access.members.getMember(id, userId))!) }, existing ? 200 : 201);
  });

  // Removes a member: owners and administrators; anyone may leave. The last owner cannot (409).
  api.delete('/projects/:owner/:repo/members/:user_id', describe({ summary: 'Remove a member (owners), or leave; the last owner cannot', responses: { 204: null } }), param(projectParams({ user_id: userIdSchema })), async (c) => {
    const { project_id: id, user_id: userId } = c.req.valid('param');
    const me = c.get('user');
    await access.require(me, id, userId === me.id ? 'viewer' : 'owner');
    await access.members.changeMember(id, userId, undefined);
    return c.body(null, 204);
  });

  return api;
}

function memberView({ v: _v, project_id: _p, ...member }: ProjectMember) {
  return member;
}

/**
 * The path after `/<area>/`, taken from the raw URL so that encoded characters
 * reach the normaliser as sent; refused with a 400 when its key would be too long.
 */
function pathOf(c: Context, projectId: string, area: ProjectArea): string {
  const raw = new URL(c.req.url).pathname;
  const marker = `/${c.req.param('owner')}/${c.req.param('repo')}/${area}/`;
  const at = raw.indexOf(marker);
  const encoded = at >= 0 ? raw.slice(at + marker.length) : '';
  let path: string;
  try {
    path = decodeURIComponent(encoded);
  } catch {
    throw invalidField('path', 'is not valid percent-encoding');
  }
  checked(() => projectKey(projectId, area, path), 'path');
  return path;
}

function checked<T>(fn: () => T, field: string): T {
  try {
    return fn();
  } catch (error) {
    if (PathError.isInstance(error)) throw invalidField(field, error.message);
    throw error;
  }
}

