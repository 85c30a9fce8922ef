import type { EvalRun } from '@zero/agent/wire/evals';
import { log } from '@zero/agent/log/log';
import type { EvalStore } from '@zero/runtime/evals/eval-store';
import { evalReport, reportMarkdown } from '@zero/runtime/evals/report';
import { GitHubRequestError, repoPath } from './client';
import { cutForGitHub } from './cut-summary';
import { githubClient, type GitHubSettings } from './settings';

type CheckReport = NonNullable<NonNullable<EvalRun['github_check']>['report']>;

/**
 * Puts the ended eval run's report on GitHub as a check run on `github_check`'s commit, with the
 * deployment's GitHub credentials: its conclusion `failure` when a variant is worse than the baseline
 * beyond the check's threshold (the gate of `zero eval run`), `cancelled` for a cancelled run, else
 * `success`; its summary the Markdown report. GitHub's 429 and 5xx are retried by the client. Returns
 * the run with how that went in `github_check.report`, to be stored. Must not throw.
 */
export async function reportEvalRunOnGitHub(settings: GitHubSettings, evals: EvalStore, run: EvalRun): Promise<EvalRun> {
  const check = run.github_check;
  if (!check) return run;
  const at = () => new Date().toISOString();
  let report: CheckReport;
  let conclusion: CheckReport['conclusion'] = run.status === 'cancelled' ? 'cancelled' : 'failure';
  try {
    const [results, dataset] = await Promise.all([evals.results(run.id), evals.getDataset(run.dataset, run.dataset_version)]);
    const body = evalReport(run, dataset ?? { cases: [] }, results, check.threshold);
    if (run.status === 'completed') conclusion = body.regressions.length ? 'failure' : 'success';
    const worse = body.regressions.map((r) => r.variant);
    const title = run.status === 'cancelled' ? `Cancelled after ${body.done} of ${body.total} cases` : worse.length ? `Worse than the baseline: ${worse.join(', ')}` : `No variant is worse than the baseline (${body.total} cases)`;
    const { client } = githubClient(settings, undefined, check.repo, 'github_check');
    const posted = await client.json<{ id: number }>('POST', `${repoPath(check.repo)}/check-runs`, {
      name: `Zero eval (${run.dataset})`,
      head_sha: check.sha,
      external_id: run.id,
      status: 'completed',
      conclusion,
      completed_at: run.completed_at ?? at(),
      output: { title, summary: cutForGitHub(reportMarkdown(body)) },
    });
    report = { status: 'delivered', conclusion, check_run_id: posted.value.id, attempts: posted.attempts, at: at() };
  } catch (error) {
    const failed = GitHubRequestError.isInstance(error) ? error : undefined;
    report = { status: 'failed', conclusion, attempts: failed?.attempts ?? 0, ...(failed?.status ? { last_status: failed.status } : {}), last_error: String((error as Error)?.message ?? error).slice(0, 500), at: at() };
    log.warn('posting an eval run check on GitHub failed', { eval_run_id: run.id, repo: check.repo, ...report });
  }
  return { ...run, github_check: { ...check, report } };
}
