import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { GitHubRepositoryResource } from '@zero/runtime/store/session-record';
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
  z.looseObject({ type: z.literal('file') }),
  z.looseObject({ type: z.literal('memory_store') }),
]);
export type SessionResourceParams = z.infer<typeof sessionResourceParams>;

/**
 * A repository resource as the session keeps it. The URL names a repository on github.com
 * (`https://github.com/owner/name`, optionally `.git`); the mount path is under `/workspace`
 * (default `/workspace/<name>`). Tokens are refused: Zero keeps no secret in a session; an
 * administrator's resource is read with the deployment's GitHub credentials, anyone else's
 * anonymously (public repositories). Files and memory stores are refused by name. Throws a 400
 * naming `field`.
 */
export function githubRepositoryResource(params: SessionResourceParams, admin: boolean, field: string): GitHubRepositoryResource {
  if (params.type !== 'github_repository') {
    throw invalidField(`${field}.type`, `${params.type} resources are not supported yet; put files in the session's project, or attach a github_repository`);
  }
  if (params.authorization_token !== undefined) {
    throw invalidField(`${field}.authorization_token`, 'Zero keeps no token in a session: public repositories are read anonymously, and an administrator\'s resources with the deployment\'s GitHub credentials');
  }
  const match = /^https:\/\/github\.com\/([A-Za-z0-9_.-]{1,100})\/([A-Za-z0-9_.-]{1,100}?)(\.git)?\/?$/.exec(params.url);
  if (!match) throw invalidField(`${field}.url`, 'must be a GitHub repository URL such as https://github.com/owner/name');
  const [, owner, name] = match;
  let mount: string;
  try {
    const raw = params.mount_path ?? `${WORKSPACE}/${name}`;
    const relative = raw.startsWith(`${WORKSPACE}/`) ? raw.slice(WORKSPACE.length + 1) : raw;
    if (raw.startsWith('/') && !raw.startsWith(`${WORKSPACE}/`)) throw new PathError(`must be under ${WORKSPACE}`);
    mount = normalizeProjectFolder(relative);
    if (!mount) throw new PathError(`must name a folder under ${WORKSPACE}, not ${WORKSPACE} itself`);
  } catch (error) {
    if (PathError.isInstance(error)) throw invalidField(`${field}.mount_path`, error.message);
    throw error;
  }
  const now = new Date().toISOString();
  return {
    type: 'github_repository',
    id: `sesrsc_${randomBytes(12).toString('hex')}`,
    url: `https://github.com/${owner}/${name}`,
    repo: `${owner}/${name}`,
    checkout: params.checkout ?? null,
    mount_path: mount,
    credentials: admin ? 'deployment' : 'none',
    created_at: now,
    updated_at: now,
  };
}

/** A kept resource as the API shows it (`BetaManagedAgentsGitHubRepositoryResource`). */
export function sessionResourceView(resource: GitHubRepositoryResource) {
  const { id, type, url, checkout, created_at, updated_at } = resource;
  return { id, type, url, checkout, mount_path: `${WORKSPACE}/${resource.mount_path}`, created_at, updated_at };
}
