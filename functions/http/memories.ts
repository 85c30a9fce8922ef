import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { PathError, normalizeProjectPath } from '@zero/runtime/projects/paths';
import { invalidField, notFound } from '@zero/agent/errors';
import { memoryKey, type MemoryStoreRef } from '@zero/runtime/memory/paths';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import type { MemoryStore } from '@zero/runtime/memory/memory-store';
import { memoryFileSchema, memoryListingSchema, memoryWriteRequestSchema, memoryWrittenSchema, projectIdSchema, userIdSchema } from '@zero/agent/wire';
import { describe, json, param } from './declare';
import type { Env } from './env';

const userParams = z.object({ user_id: userIdSchema });
const projectParams = z.preprocess((raw) => {
  const { owner, repo, ...rest } = raw as Record<string, string>;
  return { project_id: `${owner}/${repo}`, ...rest };
}, z.object({ project_id: projectIdSchema }));

type Need = 'read' | 'write';

/**
 * `/memories` routes: a person reads and edits what agents remember.
 * `users/<id>` is the caller's own store (`users/me` names it too): nobody
 * else sees it, administrators included. `projects/<owner>/<repo>` is a
 * project's: its viewers read, its editors write. A store the caller may not
 * see answers 404, as one that does not exist. Writes take `If-Match: <hash>`
 * (409 when the file changed since) or `If-None-Match: *` (409 when it exists).
 */
export function memoryRoutes(deps: Pick<ChatDeps, 'memory' | 'projectAccess'>) {
  const api = new Hono<Env>();
  const memory = deps.memory;
  if (!memory) return api;
  storeRoutes(api, memory, '/memories/users/:user_id', userParams, "the caller's own memory", async (user, { user_id }) => {
    if (user_id !== 'me' && user_id !== user.id) throw notFound(`no memory store "users/${user_id}"`, 'user_id');
    return { kind: 'user', userId: user.id };
  });
  storeRoutes(api, memory, '/memories/projects/:owner/:repo', projectParams, "a project's memory", async (user, { project_id }, need) => {
    await deps.projectAccess.require(user, project_id, need === 'read' ? 'viewer' : 'editor');
    return { kind: 'project', projectId: project_id };
  });
  return api;
}

/** The four routes of one kind of store: list, read, write, delete. `resolve` checks the caller and names the store. */
function storeRoutes<P extends z.ZodType<object>>(
  api: Hono<Env>,
  memory: MemoryStore,
  route: string,
  params: P,
  label: string,
  resolve: (user: AuthUser, params: z.output<P>, need: Need) => Promise<MemoryStoreRef>,
) {
  const maxBody = memory.limits.maxFileBytes * 6 + 1024;
  api.get(route, describe({ summary: `List ${label}: paths and sizes`, responses: { 200: memoryListingSchema } }), param(params), async (c) => {
    const ref = await resolve(c.get('user'), c.req.valid('param'), 'read');
    return c.json(await listing(memory, ref));
  });

  api.get(`${route}/*`, describe({ summary: `Read a file of ${label}`, responses: { 200: memoryFileSchema } }), param(params), async (c) => {
    const ref = await resolve(c.get('user'), c.req.valid('param'), 'read');
    const path = filePath(c, ref);
    const file = await memory.read(ref, path);
    if (!file) throw notFound(`no memory file "${path}"`, 'path');
    return c.json(file, 200, { etag: `"${file.hash}"` });
  });

  api.put(
    `${route}/*`,
    describe({ summary: `Write a file of ${label} (If-Match: its hash; If-None-Match: * to create only)`, responses: { 200: memoryWrittenSchema } }),
    param(params),
    json(memoryWriteRequestSchema, { maxBytes: maxBody }),
    async (c) => {
      const ref = await resolve(c.get('user'), c.req.valid('param'), 'write');
      const path = filePath(c, ref);
      const { content } = c.req.valid('json');
      const file = await memory.write(ref, path, () => content, conditions(c));
      return c.json({ path, size: file.size, hash: file.hash }, 200, { etag: `"${file.hash}"` });
    },
  );

  api.delete(`${route}/*`, describe({ summary: `Delete a file or folder of ${label} (If-Match: a file's hash)`, responses: { 204: null } }), param(params), async (c) => {
    const ref = await resolve(c.get('user'), c.req.valid('param'), 'write');
    const path = filePath(c, ref);
    await memory.remove(ref, path, { ifMatch: conditions(c).ifMatch });
    return c.body(null, 204);
  });
}

async function listing(memory: MemoryStore, ref: MemoryStoreRef) {
  const files = await memory.list(ref);
  const { maxFileBytes, maxStoreBytes, maxFiles } = memory.limits;
  return {
    store: ref.kind === 'user' ? `users/${ref.userId}` : ref.kind === 'project' ? `projects/${ref.projectId}` : `stores/${ref.storeId}`,
    files,
    used_bytes: files.reduce((n, f) => n + f.size, 0),
    limits: { max_file_bytes: maxFileBytes, max_store_bytes: maxStoreBytes, max_files: maxFiles },
  };
}

/** `If-Match` (a hash, quoted or not) and `If-None-Match: *`; any other If-None-Match is refused. */
function conditions(c: Context<Env>) {
  const match = c.req.header('if-match')?.trim();
  const noneMatch = c.req.header('if-none-match')?.trim();
  if (noneMatch !== undefined && noneMatch !== '*') throw invalidField('If-None-Match', 'only "*" (create, never replace) is supported');
  if (match === '*') throw invalidField('If-Match', 'give the hash of the file as you read it, not "*"');
  return { ...(match ? { ifMatch: match.replace(/^W\//, '').replace(/^"(.*)"$/, '$1') } : {}), ...(noneMatch ? { ifNoneMatch: true } : {}) };
}

/**
 * The file's path after the store's part of the URL, taken from the raw URL so
 * that encoded characters reach the normaliser as sent; a 400 naming `path`.
 */
function filePath(c: Context<Env>, ref: MemoryStoreRef): string {
  const raw = new URL(c.req.url).pathname;
  const segments = raw.slice(raw.indexOf('/memories/') + '/memories/'.length).split('/');
  const encoded = segments.slice(ref.kind === 'user' ? 2 : 3).join('/');
  let path: string;
  try {
    path = decodeURIComponent(encoded);
  } catch {
    throw invalidField('path', 'is not valid percent-encoding');
  }
  try {
    normalizeProjectPath(path);
    memoryKey(ref, path);
  } catch (error) {
    if (PathError.isInstance(error)) throw invalidField('path', error.message);
    throw error;
  }
  return path;
}
