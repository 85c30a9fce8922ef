import { Readable } from 'node:stream';
import { ZeroError } from '@zero/agent/errors';
import { DEFAULT_ARCHIVE_LIMITS, extractTarGz, type ArchiveLimits } from '@zero/runtime/projects/archive';
import { projectKey } from '@zero/runtime/projects/paths';
import { changedFiles, contentTypeOf, mapLimit, type ProjectFileInput, type ProjectMeta, type ProjectStore } from '@zero/runtime/projects/project-store';
import { isAppRef } from './app';
import { GitHubRequestError, repoPath, type GitHubClient } from './client';

/** The limits of a hydrate: those of an archive upload (`maxArchiveBytes` the tarball as downloaded). */
export interface HydrateLimits {
  maxArchiveBytes: number;
  archive: ArchiveLimits;
}

/** The archive upload's defaults: a 50 MB tarball, and what an archive may hold. */
export const DEFAULT_HYDRATE_LIMITS: HydrateLimits = { maxArchiveBytes: 50 * 1024 * 1024, archive: DEFAULT_ARCHIVE_LIMITS };

export interface HydrateRequest {
  projectId: string;
  /** `owner/repo` on GitHub. */
  repo: string;
  ref: string;
  /** Files Zero adds beside the tree (a pull request's `.zero/pr.diff`). */
  extra?: ProjectFileInput[];
  /** Where the token came from, for errors: the environment variable's name, or the App's reference. */
  tokenRef?: string;
}

export interface HydrateResult {
  project: ProjectMeta;
  sha: string;
  files: number;
  uploaded: number;
  unchanged: number;
  removed: number;
  bytes: number;
  skipped: { path: string; reason: string }[];
  skipped_count: number;
}

/**
 * Makes a project's files the GitHub repository's tree at `ref`: resolves
 * the ref to a commit, downloads that commit's tarball (through the guard,
 * following GitHub's redirect to its download host), extracts it in memory
 * under the archive limits (so a tree over them changes nothing), then
 * writes only the files whose content differs from what is stored and
 * deletes those gone from the tree. Unchanged files are told by their MD5,
 * which is what S3 gives as the ETag of an object written in one PUT; where
 * the ETag is something else (SSE-KMS), every file is simply written again.
 */
export async function hydrateProject(projects: ProjectStore, github: GitHubClient, request: HydrateRequest, limits: HydrateLimits): Promise<HydrateResult> {
  const { sha, archive } = await fetchCommitTree(github, request, limits);
  const tree = new Map(archive.files.map((f) => [f.path, f]));
  for (const file of request.extra ?? []) tree.set(file.path, file);

  const stored = await projects.storedHashes(request.projectId);
  const write = changedFiles([...tree.values()], stored);
  const remove = [...stored.keys()].filter((path) => !tree.has(path));
  const bytes = [...tree.values()].reduce((n, f) => n + f.body.byteLength, 0);
  const id = request.projectId;
  // The same commit again, nothing changed: the revision stays, so caches of the tree stay valid.
  const current = write.length || remove.length ? undefined : await projects.getProject(id);
  if (current?.source?.sha === sha) {
    return { project: current, sha, files: tree.size, uploaded: 0, unchanged: tree.size, removed: 0, bytes, skipped: archive.skipped, skipped_count: archive.skippedCount };
  }
  await mapLimit(write, 32, (f) => projects.artifacts.put(projectKey(id, 'files', f.path), f.body, f.contentType ?? contentTypeOf(f.path)));
  await projects.artifacts.deleteKeys(remove.map((path) => projectKey(id, 'files', path)));
  const at = new Date().toISOString();
  // A new revision, recording the commit: the file cache and the tools see the new tree from here on.
  const project = await projects.touch(id, { files: tree.size, bytes, at }, { github: request.repo, ref: request.ref, sha, at });
  return {
    project,
    sha,
    files: tree.size,
    uploaded: write.length,
    unchanged: tree.size - write.length,
    removed: remove.length,
    bytes,
    skipped: archive.skipped,
    skipped_count: archive.skippedCount,
  };
}

/**
 * The repository's tree at `ref`: the ref resolved to a commit, that commit's tarball downloaded
 * (through the guard, following GitHub's redirect) and extracted in memory under the archive
 * limits, its top folder dropped. Throws a ZeroError naming what to fix (see githubFailure).
 */
export async function fetchCommitTree(github: GitHubClient, request: Pick<HydrateRequest, 'repo' | 'ref' | 'tokenRef'>, limits: HydrateLimits) {
  const sha = await resolveCommit(github, request);
  let tarball: Buffer;
  try {
    // At the sha, not the ref: the tree stored is the commit recorded, even if the branch moves meanwhile.
    tarball = (await github.request('GET', `${repoPath(request.repo)}/tarball/${sha}`, { maxBytes: limits.maxArchiveBytes, timeoutMs: 120_000 })).body;
  } catch (error) {
    if (ZeroError.isInstance(error) && error.code === 'payload_too_large') {
      throw new ZeroError('payload_too_large', `the tarball of ${request.repo} at ${sha} is over ${limits.maxArchiveBytes} bytes, the limit of an archive upload`, { field: 'ref', limit: limits.maxArchiveBytes });
    }
    throw githubFailure(error, request);
  }
  // GitHub's tarball holds one top folder (`owner-repo-<sha>/`): dropped, as `strip=1` does for an upload.
  const archive = await extractTarGz(Readable.from(tarball), limits.archive, 1);
  return { sha, archive };
}

/** The commit a ref names (`GET /repos/{o}/{r}/commits/{ref}` in the `sha` media type: forty hex digits). */
async function resolveCommit(github: GitHubClient, request: Pick<HydrateRequest, 'repo' | 'ref' | 'tokenRef'>): Promise<string> {
  try {
    const response = await github.request('GET', `${repoPath(request.repo)}/commits/${encodeURIComponent(request.ref)}`, { accept: 'application/vnd.github.sha', maxBytes: 1024 });
    const sha = response.body.toString('utf8').trim();
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new GitHubRequestError(response.status, `GET ${repoPath(request.repo)}/commits`, 'the answer is not a commit sha', response.attempts);
    return sha;
  } catch (error) {
    throw githubFailure(error, request);
  }
}

/** A failed GitHub request as the HTTP edge answers it, naming the field the caller can fix. Never names the token. */
export function githubFailure(error: unknown, request: { repo: string; ref?: string; tokenRef?: string }): ZeroError {
  if (ZeroError.isInstance(error)) return error;
  if (!GitHubRequestError.isInstance(error)) return new ZeroError('upstream_error', `reaching GitHub failed: ${String((error as Error)?.message ?? error).slice(0, 300)}`);
  const token = !request.tokenRef
    ? 'no token (set token_ref for a private repository)'
    : isAppRef(request.tokenRef)
      ? `the installation token of the GitHub App in ${request.tokenRef}_ID`
      : `the token in ${request.tokenRef}`;
  switch (error.status) {
    case 401:
      // A minted token was already renewed once by the client; a variable's token may simply have expired.
      return new ZeroError('invalid_request', `GitHub refused ${token}: ${error.githubMessage || 'Bad credentials'}${request.tokenRef && isAppRef(request.tokenRef) ? '' : ' (an installation token lasts an hour)'}`, { field: 'token_ref' });
    case 403:
      return new ZeroError('forbidden', `GitHub refused ${request.repo} with ${token}: ${error.githubMessage}`, { field: 'token_ref' });
    case 404:
    case 422:
      return new ZeroError('not_found', `GitHub has no ref "${request.ref}" in ${request.repo}, or ${token} cannot read it`, { field: 'ref' });
    default:
      return new ZeroError('upstream_error', `${error.message} (after ${error.attempts} attempt${error.attempts === 1 ? '' : 's'})`);
  }
}
