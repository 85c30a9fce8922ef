import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { GitHubSettings } from './settings';
import type { GitHubRepositoryResource } from '@zero/runtime/store/session-record';
import { mapLimit } from '@zero/runtime/projects/project-store';

/**
 * Writes each repository resource's tree into a run's working copy at its `mount_path` while the
 * copy is built (before any command has seen it), with the
 * hydrate code (the commit's tarball through the outbound guard, under the archive limits). A
 * resource at a branch is read at the branch's head when the run first needs it. Throws a
 * ZeroError naming the repository when GitHub refuses or the tree is over the limits.
 */
export async function mountResources(building: string, resources: readonly GitHubRepositoryResource[], github: GitHubSettings | undefined): Promise<void> {
  if (!resources.length) return;
  if (!github) throw new Error('this server reaches no GitHub, so the session\'s repositories cannot be mounted');
  const { fetchCommitTree, githubClient, GitHubClient, DEFAULT_HYDRATE_LIMITS } = await import('.');
  for (const resource of resources) {
    // The deployment's credentials only for a resource an administrator attached: they reach repositories others may not.
    const { client, tokenRef } = resource.credentials === 'deployment' ? githubClient(github, undefined, resource.repo) : { client: new GitHubClient(undefined, github.options), tokenRef: undefined };
    const ref = resource.checkout?.type === 'commit' ? resource.checkout.sha : resource.checkout?.type === 'branch' ? resource.checkout.name : 'HEAD';
    const { archive } = await fetchCommitTree(client, { repo: resource.repo, ref, tokenRef }, DEFAULT_HYDRATE_LIMITS);
    const root = join(building, resource.mount_path);
    // Archive paths passed the project normaliser (no "..", no absolute path); the mount path was checked when attached.
    await mapLimit(archive.files, 16, async (file) => {
      const target = join(root, file.path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.body);
    });
  }
}
