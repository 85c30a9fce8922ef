import type { GitHubClient } from '../github/client';
import type { LogRecord } from '@zero/runtime/store/records';
import type { HookConfig } from './hook-config';
import type { SessionSummary } from './webhook-store';
import type { WebhookDeps } from './webhooks';
import { log } from '@zero/agent/log/log';
import { cutForGitHub } from '../github/cut-summary';

type RunEnd = Extract<LogRecord, { kind: 'run_end' }>;
type GitHubReport = NonNullable<NonNullable<SessionSummary['github']>['report']>;

/** Pages of comments looked through for Zero's earlier one (100 a page). */
const MAX_COMMENT_PAGES = 10;

/**
 * The hidden first line of Zero's comment on a pull request, one per hook:
 * a re-run finds its earlier comment by it and edits it rather than adding another.
 */
export const reportMarker = (hookId: string) => `<!-- zero:report hook=${hookId} -->`;

/** A check run's conclusion from how the run ended: `neutral` when it stopped at a limit. */
export function checkConclusion(status: RunEnd['status']): 'success' | 'neutral' | 'failure' | 'cancelled' {
  return status === 'completed' ? 'success' : status === 'limit' ? 'neutral' : status === 'cancelled' ? 'cancelled' : 'failure';
}

/**
 * Posts the investigation's report where the hook says: a comment on the
 * pull request (Zero's earlier one edited, found by its marker) or a check
 * run on the head commit, with a link to the session. GitHub's 429 and 5xx
 * are retried with backoff by the client; the outcome is recorded on the
 * summary's `github.report`. Must not throw.
 */
export async function reportOnGitHub(deps: WebhookDeps, hook: HookConfig, summary: SessionSummary, end: RunEnd, markdown: string): Promise<void> {
  const github = summary.github;
  const kind = hook.report?.github;
  if (!github || !kind) return;
  const { githubClient, repoPath, sessionLink, GitHubRequestError } = await import('../github');
  let report: GitHubReport;
  try {
    const { client } = githubClient(deps.github, hook.github_token_ref, github.repo, 'github_token_ref');
    const link = sessionLink(deps.github, summary.session_id);
    const footer = link ? `[Open the session in Zero](${link})` : `Zero session \`${summary.session_id}\``;
    const body = `${cutForGitHub(markdown)}\n\n---\n${footer}\n`;
    const repo = repoPath(github.repo);
    if (kind === 'comment') {
      if (github.number === undefined) throw new Error('the event is about no pull request or issue');
      report = await postComment(client, repo, github.number, `${reportMarker(hook.id)}\n${body}`);
    } else {
      const sha = github.hydrated?.sha ?? github.sha;
      if (!sha) throw new Error('the event names no commit to put a check run on');
      const posted = await client.json<{ id: number }>('POST', `${repo}/check-runs`, {
        name: `Zero (${hook.id})`,
        head_sha: sha,
        status: 'completed',
        conclusion: checkConclusion(end.status),
        completed_at: end.at,
        ...(link?.startsWith('https://') ? { details_url: link } : {}),
        output: { title: `Zero: ${end.status}${end.reason ? ` (${end.reason})` : ''}`, summary: body },
      });
      report = { kind, status: 'delivered', attempts: posted.attempts, id: posted.value.id };
    }
  } catch (error) {
    const failed = GitHubRequestError.isInstance(error) ? error : undefined;
    report = {
      kind,
      status: 'failed',
      attempts: failed?.attempts ?? 0,
      ...(failed?.status ? { last_status: failed.status } : {}),
      last_error: String((error as Error)?.message ?? error).slice(0, 500),
    };
    log.warn('reporting on GitHub failed', { hook_id: hook.id, session_id: summary.session_id, ...report });
  }
  await deps.webhooks.store.updateSummary(summary.session_id, { github: { ...github, report: { ...report, at: new Date().toISOString() } } });
}

/** Edits Zero's earlier comment of this hook on the pull request, or adds one. */
async function postComment(client: GitHubClient, repo: string, number: number, body: string): Promise<GitHubReport> {
  const marker = body.slice(0, body.indexOf('\n'));
  let attempts = 0;
  let earlier: number | undefined;
  for (let page = 1; page <= MAX_COMMENT_PAGES && earlier === undefined; page++) {
    const listed = await client.json<{ id: number; body?: string }[]>('GET', `${repo}/issues/${number}/comments?per_page=100&page=${page}`);
    attempts += listed.attempts;
    earlier = listed.value.findLast((c) => typeof c.body === 'string' && c.body.startsWith(marker))?.id;
    if (!String(listed.headers.link ?? '').includes('rel="next"')) break;
  }
  if (earlier !== undefined) {
    try {
      const edited = await client.json<{ id: number }>('PATCH', `${repo}/issues/comments/${earlier}`, { body });
      return { kind: 'comment', status: 'delivered', attempts: attempts + edited.attempts, id: edited.value.id, updated: true };
    } catch (error) {
      // A comment that carries the marker but is not Zero's to edit (someone copied it): a new one is added instead.
      const { GitHubRequestError } = await import('../github/client');
      if (!GitHubRequestError.isInstance(error) || (error.status !== 403 && error.status !== 404)) throw error;
    }
  }
  const created = await client.json<{ id: number }>('POST', `${repo}/issues/${number}/comments`, { body });
  return { kind: 'comment', status: 'delivered', attempts: attempts + created.attempts, id: created.value.id, updated: false };
}
