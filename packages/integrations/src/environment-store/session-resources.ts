import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { FileResource, GitHubRepositoryResource, MemoryStoreResource, SessionResource } from '@zero/runtime/store/session-record';
import type { ApiMemoryStore } from '@zero/runtime/memory/api-stores';
import type { FileRecord } from '@zero/runtime/files/file-store';
import { normalizeProjectFolder, PathError } from '@zero/runtime/projects/paths';

/** Where a session's working copy is, inside its sandbox (`SANDBOX_WORKSPACE`). */
const WORKSPACE = '/workspace';

/** One of `resources` of `POST /v1/sessions` (`BetaManagedAgentsGitHubRepositoryResourceParams`, `…FileResourceParams`, `…MemoryStoreResourceParam`). */
export const sessionResourceParams = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('github_repository'),
    url: z.string().max(500),
    authorization_token: z.string().max(500).optional(),
    checkout: z
      .discriminatedUnion('type', [
        z.strictObject({ type: z.literal('commit'), sha: z.string().regex(/^[0-9a-f]{40}$/, 'must be a full commit sha (40 hex digits)') }),
        z.strictObject({ type: z.literal('branch'), name: z.string().min(1).max(255).regex(/^[A-Za-z0-9._/-]+$/, 'must be a branch name') }),
      ])
      .nullish(),
    mount_path: z.string().max(1024).nullish(),
  }),
  z.strictObject({ type: z.literal('file'), file_id: z.string().min(1).max(100), mount_path: z.string().max(1024).nullish() }),
  z.strictObject({
    type: z.literal('memory_store'),
    memory_store_id: z.string().min(1).max(100),
    access: z.enum(['read_write', 'read_only']).nullish(),
    instructions: z.string().max(4096).nullish(),
  }),
]);
export type SessionResourceParams = z.infer<typeof sessionResourceParams>;

/** A resource's mount path: under `/workspace` (or relative to it), normalised as project paths are; a 400 naming `field`. */
function mountPathOf(raw: string, field: string): string {
  try {
    const relative = raw.startsWith(`${WORKSPACE}/`) ? raw.slice(WORKSPACE.length + 1) : raw;
    if (raw.startsWith('/') && !raw.startsWith(`${WORKSPACE}/`)) throw new PathError(`must be under ${WORKSPACE}`);
    const mount = normalizeProjectFolder(relative);
    if (!mount) throw new PathError(`must name a path under ${WORKSPACE}, not ${WORKSPACE} itself`);
    return mount;
  } catch (error) {
    if (PathError.isInstance(error)) throw invalidField(field, error.message);
    throw error;
  }
}

const newResourceId = () => `sesrsc_${randomBytes(12).toString('hex')}`;

/**
 * A file resource as the session keeps it: the caller's file (checked by the caller), at
 * `mount_path` under `/workspace` (default `/workspace/uploads/<filename>`).
 */
export function fileResource(params: Extract<SessionResourceParams, { type: 'file' }>, file: FileRecord, field: string): FileResource {
  const now = new Date().toISOString();
  return { type: 'file', id: newResourceId(), file_id: file.id, sha256: file.sha256, mount_path: mountPathOf(params.mount_path ?? `${WORKSPACE}/uploads/${file.filename}`, `${field}.mount_path`), created_at: now, updated_at: now };
}

/** A kept mount path as the API shows it: a memory store's is absolute, the others are under `/workspace`. */
const shown = (mount: string) => (mount.startsWith('/') ? mount : `${WORKSPACE}/${mount}`);

/** Refuses a second resource at the same mount path (or one inside another's), naming `field`. */
export function checkMountPaths(resources: readonly SessionResource[], field: string): void {
  for (const [i, a] of resources.entries()) {
    for (const b of resources.slice(i + 1)) {
      if (a.mount_path === b.mount_path || b.mount_path.startsWith(`${a.mount_path}/`) || a.mount_path.startsWith(`${b.mount_path}/`)) {
        throw invalidField(field, `${shown(b.mount_path)} overlaps ${shown(a.mount_path)}, already a mount path of the session`);
      }
    }
  }
}

/** Where the memory tool reaches attached memory stores: `/mnt/memory/<slug of the store's name>`. */
export const MEMORY_MOUNT_ROOT = '/mnt/memory';

/** A deployment's refusal of a memory_store resource: a store is attached to each session it starts. */
export const memoryStoreRefusal = (field: string) =>
  invalidField(`${field}.type`, 'memory_store resources are not supported on a deployment yet: attach the store to each session it starts (client.beta.sessions.resources.add)');

/**
 * A memory store resource as the session keeps it: the caller's store (reached by the caller, so
 * another user's is a 404), `read_write` unless asked otherwise, its name and description
 * snapshotted, mounted at `/mnt/memory/<slug of its name>` (the store id when the name has no
 * letter or digit). Two stores of one name in a session are refused by checkMountPaths.
 */
export function memoryStoreResource(params: Extract<SessionResourceParams, { type: 'memory_store' }>, store: ApiMemoryStore, field: string): MemoryStoreResource {
  if (store.archived_at) throw invalidField(`${field}.memory_store_id`, `memory store "${store.id}" is archived`);
  const slug = store.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) || store.id;
  const now = new Date().toISOString();
  return {
    type: 'memory_store',
    id: newResourceId(),
    memory_store_id: store.id,
    owner: store.owner,
    access: params.access ?? 'read_write',
    instructions: params.instructions ?? null,
    name: store.name,
    description: store.description,
    mount_path: `${MEMORY_MOUNT_ROOT}/${slug}`,
    created_at: now,
    updated_at: now,
  };
}

/**
 * A repository resource as the session keeps it. The URL names a repository on github.com
 * (`https://github.com/owner/name`, optionally `.git`); the mount path is under `/workspace`
 * (default `/workspace/<name>`). Tokens are refused: Zero keeps no secret in a session; an
 * administrator's resource is read with the deployment's GitHub credentials, anyone else's
 * anonymously (public repositories). Memory stores are refused (deployments). Throws a 400
 * naming `field`.
 */
export function githubRepositoryResource(params: SessionResourceParams, admin: boolean, field: string): GitHubRepositoryResource {
  if (params.type === 'memory_store') throw memoryStoreRefusal(field);
  if (params.type !== 'github_repository') throw invalidField(`${field}.type`, `${params.type} resources are attached with fileResource`);
  if (params.authorization_token !== undefined) {
    throw invalidField(`${field}.authorization_token`, 'Zero keeps no token in a session: public repositories are read anonymously, and an administrator\'s resources with the deployment\'s GitHub credentials');
  }
  const match = /^https:\/\/github\.com\/([A-Za-z0-9_.-]{1,100})\/([A-Za-z0-9_.-]{1,100}?)(\.git)?\/?$/.exec(params.url);
  if (!match) throw invalidField(`${field}.url`, 'must be a GitHub repository URL such as https://github.com/owner/name');
  const [, owner, name] = match;
  const mount = mountPathOf(params.mount_path ?? `${WORKSPACE}/${name}`, `${field}.mount_path`);
  const now = new Date().toISOString();
  return {
    type: 'github_repository',
    id: newResourceId(),
    url: `https://github.com/${owner}/${name}`,
    repo: `${owner}/${name}`,
    checkout: params.checkout ?? null,
    mount_path: mount,
    credentials: admin ? 'deployment' : 'none',
    created_at: now,
    updated_at: now,
  };
}

/** A kept resource as the API shows it (`BetaManagedAgentsGitHubRepositoryResource`, `…FileResource`, `…MemoryStoreResource`). */
export function sessionResourceView(resource: SessionResource) {
  if (resource.type === 'memory_store') {
    const { id, type, memory_store_id, access, instructions, name, description, mount_path, created_at, updated_at } = resource;
    return { id, type, memory_store_id, access, instructions, name, description, mount_path, created_at, updated_at };
  }
  const mount_path = `${WORKSPACE}/${resource.mount_path}`;
  if (resource.type === 'file') {
    const { id, type, file_id, created_at, updated_at } = resource;
    return { id, type, file_id, mount_path, created_at, updated_at };
  }
  const { id, type, url, checkout, created_at, updated_at } = resource;
  return { id, type, url, checkout, mount_path, created_at, updated_at };
}
