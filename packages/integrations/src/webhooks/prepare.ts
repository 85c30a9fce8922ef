import { ZeroError } from '@zero/agent/errors';
import type { ProjectFileInput } from '@zero/runtime/projects/project-store';
import type { WebhookDeps } from './webhooks';
import { errorText, log } from '@zero/agent/log/log';

/** Where a pull request's diff is put among the project's files. */
export const PR_DIFF_PATH = '.zero/pr.diff';
/** The largest diff stored; a larger one is left out with a warning (the tree is still hydrated). */
const MAX_DIFF_BYTES = 5 * 1024 * 1024;

/**
 * Readies a GitHub hook's investigation before its run: makes the project's
 * files the repository's tree at the event's commit, with a pull request's
 * diff as `.zero/pr.diff`. Called by the worker before it drives the
 * session; does something only while the summary says `hydrate: pending`,
 * so a redelivered job costs one read. A failure is recorded on the summary
 * (status `failed`, a warning) and the run goes on with the files there are.
 * Must not throw.
 */
export async function prepareInvestigation(deps: WebhookDeps, sessionId: string): Promise<void> {
  try {
    const summary = await deps.webhooks.store.getSummary(sessionId);
    const github = summary?.github;
    if (!summary || github?.hydrate !== 'pending' || !summary.project_id) return;
    const hook = await deps.webhooks.hooks.get(summary.origin.hook_id);
    const { githubClient, githubFailure, hydrateProject, repoPath, DEFAULT_HYDRATE_LIMITS } = await import('../github');
    const warnings: string[] = [];
    const ref = github.sha ?? github.ref!;
    try {
      const { client, tokenRef } = githubClient(deps.github, hook?.github_token_ref, github.repo, 'github_token_ref');
      const extra: ProjectFileInput[] = [];
      if (github.number !== undefined && summary.origin.event.startsWith('pull_request')) {
        try {
          const diff = await client.request('GET', `${repoPath(github.repo)}/pulls/${github.number}`, { accept: 'application/vnd.github.diff', maxBytes: MAX_DIFF_BYTES });
          extra.push({ path: PR_DIFF_PATH, body: diff.body, contentType: 'text/x-diff; charset=utf-8' });
        } catch (error) {
          if (!ZeroError.isInstance(error)) throw githubFailure(error, { repo: github.repo, ref, tokenRef });
          warnings.push(`hydrate: the pull request's diff is over ${MAX_DIFF_BYTES} bytes and was not stored as ${PR_DIFF_PATH}`);
        }
      }
      const result = await hydrateProject(deps.projects, client, { projectId: summary.project_id, repo: github.repo, ref, extra, tokenRef }, DEFAULT_HYDRATE_LIMITS);
      await deps.webhooks.store.updateSummary(sessionId, {
        github: { ...github, hydrate: 'done', hydrated: { sha: result.sha, files: result.files, uploaded: result.uploaded, removed: result.removed } },
        ...(warnings.length ? { warnings: [...summary.warnings, ...warnings] } : {}),
      });
    } catch (error) {
      const message = ZeroError.isInstance(error) ? error.message : String((error as Error)?.message ?? error);
      await deps.webhooks.store.updateSummary(sessionId, {
        github: { ...github, hydrate: 'failed' },
        warnings: [...summary.warnings, ...warnings, `hydrate: ${github.repo} at ${ref} was not hydrated: ${message}`],
      });
    }
  } catch (error) {
    log.error('preparing a webhook investigation failed', { session_id: sessionId, error: errorText(error) });
  }
}
