import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as z from 'zod';
import {
  DEFAULT_ARCHIVE_LIMITS,
  PathError,
  ZeroError,
  contentTypeOf,
  extractTarGz,
  invalidField,
  invalidRequest,
  normalizeProjectFolder,
  notFound,
  projectIdSchema,
  projectKey,
  roleSchema,
  scannerSchema,
  tooLarge,
  userIdSchema,
  type ArchiveLimits,
  type ChatDeps,
  type ProjectArea,
  type ProjectMember,
} from '@zero/core';
import type { Env } from './env';
import { jsonBody } from './validate';

/** Request limits of the project API, documented in the README. */
export interface ProjectApiLimits {
  /** One uploaded file, and an analysis document. */
  maxFileBytes: number;
  /** A compressed archive as sent. */
  maxArchiveBytes: number;
  archive: ArchiveLimits;
}

export const DEFAULT_PROJECT_API_LIMITS: ProjectApiLimits = {
  maxFileBytes: 5 * 1024 * 1024,
  maxArchiveBytes: 50 * 1024 * 1024,
  archive: DEFAULT_ARCHIVE_LIMITS,
};

const archiveQuerySchema = z.object({ strip: z.coerce.number().int().min(0).max(10).default(0) });
const listQuerySchema = z.object({ under: z.string().max(1024).optional().transform((v) => v || undefined) });
const memberSchema = z.strictObject({ role: roleSchema, name: z.string().trim().min(1).max(200).optional() });

/**
 * `/projects` routes: list projects, upload one file or a `.tar.gz` tree,
 * list and read files and reports, put and get analysis documents, manage
 * members. Project ids are `owner/repo`, so they take two path segments.
 * Every route checks the caller's role through ProjectAccess: viewers read,
 * editors write (the first writer of a new project becomes its owner),
 * owners manage members; administrators may do everything.
 */
export function projectRoutes(deps: Pick<ChatDeps, 'projects' | 'projectAccess'>, limits: ProjectApiLimits = DEFAULT_PROJECT_API_LIMITS) {
  const { projects, projectAccess: access } = deps;
  const api = new Hono<Env>();
  const sized = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw tooLarge(`request body over ${maxSize} bytes`);
      },
    });

  api.get('/projects', async (c) => {
    const visible = await access.visibleTo(c.get('user'));
    const listed = await projects.listProjects(visible === 'all' ? undefined : [...visible.keys()]);
    return c.json({ projects: listed.map((p) => ({ ...p, role: visible === 'all' ? 'owner' : visible.get(p.id) })) });
  });

  api.get('/projects/:owner/:repo', async (c) => {
    const id = projectIdOf(c);
    const role = await access.require(c.get('user'), id, 'viewer');
    return c.json({ project: await projects.requireProject(id), analyses: await projects.listAnalyses(id), role });
  });

  api.post('/projects/:owner/:repo/archive', sized(limits.maxArchiveBytes), async (c) => {
    const id = projectIdOf(c);
    await access.requireWriter(c.get('user'), id);
    const query = archiveQuerySchema.safeParse(c.req.query());
    if (!query.success) throw invalidRequest(query.error);
    const body = c.req.raw.body;
    if (!body) throw new ZeroError('invalid_request', 'the body must be a .tar.gz archive', { field: 'archive' });
    const archive = await extractTarGz(body, limits.archive, query.data.strip);
    const meta = await projects.putFiles(id, archive.files, { upload: true });
    return c.json({ project: meta, files: archive.files.length, bytes: meta.last_upload?.bytes ?? 0, skipped: archive.skipped, skipped_count: archive.skippedCount }, 201);
  });

  api.put('/projects/:owner/:repo/files/*', sized(limits.maxFileBytes), async (c) => {
    const id = projectIdOf(c);
    const path = pathOf(c, id, 'files');
    await access.requireWriter(c.get('user'), id);
    const body = new Uint8Array(await c.req.arrayBuffer());
    const meta = await projects.putFiles(id, [{ path, body, contentType: c.req.header('content-type') || contentTypeOf(path) }]);
    return c.json({ project: meta, path, bytes: body.byteLength }, 201);
  });

  for (const area of ['files', 'reports'] as const) {
    api.get(`/projects/:owner/:repo/${area}`, async (c) => {
      const id = projectIdOf(c);
      const user = c.get('user');
      await access.require(user, id, 'viewer');
      await projects.requireProject(id);
      const query = listQuerySchema.safeParse(c.req.query());
      if (!query.success) throw invalidRequest(query.error);
      const folder = checked(() => {
        const folder = normalizeProjectFolder(query.data.under);
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
    api.get(`/projects/:owner/:repo/${area}/*`, async (c) => {
      const id = projectIdOf(c);
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

  api.put('/projects/:owner/:repo/analysis/:scanner', sized(limits.maxFileBytes), async (c) => {
    const id = projectIdOf(c);
    const scanner = scannerOf(c);
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

  api.get('/projects/:owner/:repo/analysis/:scanner', async (c) => {
    const id = projectIdOf(c);
    const scanner = scannerOf(c);
    await access.require(c.get('user'), id, 'viewer');
    const document = await projects.getAnalysis(id, scanner);
    if (document === undefined) throw notFound(`no "${scanner}" analysis for project "${id}"`, 'scanner');
    return c.json(document as object);
  });

  api.get('/projects/:owner/:repo/members', async (c) => {
    const id = projectIdOf(c);
    await access.require(c.get('user'), id, 'owner');
    return c.json({ project_id: id, members: (await access.members.listMembers(id)).map(memberView) });
  });

  // Adds a member or changes their role: owners of the project and administrators.
  api.put('/projects/:owner/:repo/members/:user_id', async (c) => {
    const id = projectIdOf(c);
    const userId = userIdOf(c);
    const body = await jsonBody(c, memberSchema);
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
  api.delete('/projects/:owner/:repo/members/:user_id', async (c) => {
    const id = projectIdOf(c);
    const userId = userIdOf(c);
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

function userIdOf(c: Context): string {
  const parsed = userIdSchema.safeParse(c.req.param('user_id'));
  if (!parsed.success) throw invalidField('user_id', parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}

function projectIdOf(c: Context): string {
  const parsed = projectIdSchema.safeParse(`${c.req.param('owner')}/${c.req.param('repo')}`);
  if (!parsed.success) throw invalidField('project_id', parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}

function scannerOf(c: Context): string {
  const parsed = scannerSchema.safeParse(c.req.param('scanner'));
  if (!parsed.success) throw invalidField('scanner', parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
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

