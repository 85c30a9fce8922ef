import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { FileResource, GitHubRepositoryResource, SessionResource } from '@zero/runtime/store/session-record';
import type { FileRecord } from '@zero/runtime/files/file-store';
import { normalizeProjectFolder, PathError } from '@zero/runtime/projects/paths';

/** Where a session's working copy is, inside its sandbox (`SANDBOX_WORKSPACE`). */
const WORKSPACE = '/workspace';

/** One of `resources` of `POST /v1/sessions` (`BetaManagedAgentsGitHubRepositoryResourceParams` and the other types, refused by name). */
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
  z.looseObject({ type: z.literal('memory_store') }),
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

/** Refuses a second resource at the same mount path (or one inside another's), naming `field`. */
export function checkMountPaths(resources: readonly SessionResource[], field: string): void {
  for (const [i, a] of resources.entries()) {
    for (const b of resources.slice(i + 1)) {
      if (a.mount_path === b.mount_path || b.mount_path.startsWith(`${a.mount_path}/`) || a.mount_path.startsWith(`${b.mount_path}/`)) {
        throw invalidField(field, `${WORKSPACE}/${b.mount_path} overlaps ${WORKSPACE}/${a.mount_path}, already a mount path of the session`);
      }
    }
  }
}

/** The refusal of a memory_store resource: the memory stores API is not part of this deployment. */
export const memoryStoreRefusal = (field: string) =>
  invalidField(`${field}.type`, "memory_store resources are not supported yet: Zero's memory stores API (/v1/memory_stores) is not part of this deployment; attach files or a github_repository, or use Zero's memory tools");

/**
 * A repository resource as the session keeps it. The URL names a repository on github.com
 * (`https://github.com/owner/name`, optionally `.git`); the mount path is under `/workspace`
 * (default `/workspace/<name>`). Tokens are refused: Zero keeps no secret in a session; an
 * administrator's resource is read with the deployment's GitHub credentials, anyone else's
 * anonymously (public repositories). Memory stores are refused by name. Throws a 400
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

/** A kept resource as the API shows it (`BetaManagedAgentsGitHubRepositoryResource`, `BetaManagedAgentsFileResource`). */
export function sessionResourceView(resource: SessionResource) {
  const mount_path = `${WORKSPACE}/${resource.mount_path}`;
  if (resource.type === 'file') {
    const { id, type, file_id, created_at, updated_at } = resource;
    return { id, type, file_id, mount_path, created_at, updated_at };
  }
  const { id, type, url, checkout, created_at, updated_at } = resource;
  return { id, type, url, checkout, mount_path, created_at, updated_at };
}
