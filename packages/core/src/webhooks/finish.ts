import { finalText } from '../run/history';
import { isWebhookAuthor } from '../run/speaker';
import type { FinishedRun } from '../sessions/drive';
import { DEFAULT_APPROVAL_TTL_MS, pendingApproval, waitingRun } from '../sessions/approvals';
import { unfinishedRun } from '../sessions/resume';
import type { LogRecord } from '../store/records';
import { callbackTarget, postSignedCallback } from './callback';
import { writePdfReport, writeReportFile } from './report-file';
import type { SessionSummary } from './webhook-store';
import type { WebhookDeps } from './webhooks';
import { errorText, log } from '../log';

/** The event name of the callback Zero sends when an investigation ends. */
export const CALLBACK_EVENT = 'investigation.finished';
/** The event name of the callback Zero sends when an investigation waits for people (its `status` is `needs_action`). */
export const NEEDS_ACTION_EVENT = 'investigation.needs_action';

/** A summary whose run is not over: the run goes on, or waits for decisions on its pending calls. */
const OPEN_STATUSES: readonly SessionSummary['status'][] = ['accepted', 'awaiting_approval'];

/**
 * Ends a webhook-started investigation once its run is over: writes the final
 * answer as a Markdown report (`projects/<id>/reports/<session>.md`, or the
 * session's artifacts without a project) and, when the hook asks, as a PDF
 * beside it, records the outcome in the
 * session's summary, POSTs the signed callback, and posts the report on
 * GitHub when the hook asks (`report: { github }`). Other runs (a member's
 * follow-up question in the same session) are left alone.
 * Must not throw: failures are logged and, for the callback, recorded.
 */
export async function finishInvestigation(deps: WebhookDeps, finished: FinishedRun): Promise<void> {
  const sessionId = finished.session.session_id;
  // Only a run a hook started has a summary: other runs are left alone without reading it.
  const question = finished.history.find((r) => r.kind === 'user_message' && r.run_id === finished.runId);
  if (question?.kind !== 'user_message' || !isWebhookAuthor(question.author?.id)) return;
  try {
    const summary = await deps.webhooks.store.getSummary(sessionId);
    if (!summary || summary.run_id !== finished.runId || !OPEN_STATUSES.includes(summary.status)) return;
    const end = finished.history.find((r): r is Extract<LogRecord, { kind: 'run_end' }> => r.kind === 'run_end' && r.run_id === finished.runId);
    if (!end) return;

    // The report and its artifact item are rewritten whole: doing this twice (see settleInvestigation) is harmless.
    const finishedAt = new Date().toISOString();
    const markdown = reportOf(finished, summary, end);
    const where = { sessionId, runId: finished.runId, projectId: summary.project_id, at: finishedAt };
    const report = await writeReportFile(deps, where, 'md', markdown, 'text/markdown; charset=utf-8');
    const hook = await deps.webhooks.hooks.get(summary.origin.hook_id);
    const pdf = hook?.report_formats.includes('pdf') ? await writePdfReport(deps, { ...where, title: finished.session.title }, markdown) : undefined;
    const url = hook?.callback_url;
    // Leaving the open status is the claim on the callback: only one process sends it.
    const won = await deps.webhooks.store.updateSummary(
      sessionId,
      {
        status: end.status,
        steps: end.steps,
        usage: end.usage,
        reason: end.reason,
        finished_at: finishedAt,
        report,
        ...(pdf && 'file' in pdf ? { pdf_report: pdf.file } : {}),
        ...(pdf && 'warning' in pdf ? { warnings: [...summary.warnings, pdf.warning] } : {}),
        ...(summary.pending ? { pending: [] } : {}),
        ...(url ? { callback: { target: callbackTarget(url), status: 'pending' as const, attempts: 0 } } : {}),
      },
      summary.status,
    );
    if (!won || !hook) return;
    if (url) {
      await sendCallback(deps, hook, url, CALLBACK_EVENT, summary, {
        run_id: finished.runId,
        status: end.status,
        report,
        ...(pdf && 'file' in pdf ? { pdf_report: pdf.file } : {}),
      });
    }
    if (hook.report?.github) await (await import('./github-report')).reportOnGitHub(deps, hook, summary, end, markdown);
  } catch (error) {
    log.error('finishing a webhook investigation failed', { session_id: sessionId, error: errorText(error) });
  }
}

/**
 * A webhook-started investigation whose run waits for people: its summary
 * says `awaiting_approval` with the pending calls, and the hook's callback
 * (if any) is sent with `status: "needs_action"`, once per set of calls
 * asked. When the run ends, finishInvestigation ends it as usual.
 * Must not throw.
 */
export async function investigationWaits(deps: WebhookDeps & { approvalTtlMs?: number }, waiting: FinishedRun): Promise<void> {
  const sessionId = waiting.session.session_id;
  const question = waiting.history.find((r) => r.kind === 'user_message' && r.run_id === waiting.runId);
  if (question?.kind !== 'user_message' || !isWebhookAuthor(question.author?.id)) return;
  try {
    const summary = await deps.webhooks.store.getSummary(sessionId);
    if (!summary || summary.run_id !== waiting.runId || !OPEN_STATUSES.includes(summary.status)) return;
    const run = waitingRun(waiting.history);
    if (run?.runId !== waiting.runId) return;
    const pending = run.pending.map((p) => pendingApproval(p, deps.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS));
    const ids = (calls: readonly { tool_call_id: string }[] | undefined) => (calls ?? []).map((p) => p.tool_call_id).join(' ');
    // The same wait seen again (a job delivered twice): its callback is out already.
    if (summary.status === 'awaiting_approval' && ids(summary.pending) === ids(pending)) return;

    const hook = await deps.webhooks.hooks.get(summary.origin.hook_id);
    const url = hook?.callback_url;
    const won = await deps.webhooks.store.updateSummary(
      sessionId,
      { status: 'awaiting_approval', pending, ...(url ? { callback: { target: callbackTarget(url), status: 'pending' as const, attempts: 0 } } : {}) },
      summary.status,
    );
    if (!won || !hook || !url) return;
    await sendCallback(deps, hook, url, NEEDS_ACTION_EVENT, summary, { run_id: waiting.runId, status: 'needs_action', pending });
  } catch (error) {
    log.error('recording a waiting webhook investigation failed', { session_id: sessionId, error: errorText(error) });
  }
}

/** POSTs the hook's signed callback and records how it went in the summary. */
async function sendCallback(
  deps: WebhookDeps,
  hook: { id: string; secret_ref: string },
  url: string,
  event: string,
  summary: SessionSummary,
  fields: Record<string, unknown>,
): Promise<void> {
  const sessionId = summary.session_id;
  const secret = deps.webhooks.secret(hook.secret_ref);
  const body = JSON.stringify({
    type: event,
    hook_id: hook.id,
    event: summary.origin.event,
    delivery_id: summary.origin.delivery_id,
    session_id: sessionId,
    ...fields,
    summary_path: `/api/v2/sessions/${sessionId}/summary`,
  });
  const result = secret
    ? await postSignedCallback(url, body, secret, event, deps.webhooks.callback)
    : { status: 'failed' as const, attempts: 0, last_error: `the hook's secret (${hook.secret_ref}) is not set, so the callback cannot be signed` };
  await deps.webhooks.store.updateSummary(sessionId, { callback: { target: callbackTarget(url), ...result, at: new Date().toISOString() } });
  if (result.status === 'failed') {
    log.warn('webhook callback failed', { hook_id: hook.id, session_id: sessionId, ...result });
  }
}

/**
 * Finishes an investigation whose run ended but whose ending was not handled
 * (the process died between the run's `run_end` and finishInvestigation).
 * Cheap when there is nothing to do: one read of the summary. Called after
 * every run job and when a summary is read. Must not throw.
 */
export async function settleInvestigation(deps: WebhookDeps, sessionId: string): Promise<void> {
  try {
    const summary = await deps.webhooks.store.getSummary(sessionId);
    if (!summary || !OPEN_STATUSES.includes(summary.status)) return;
    const history = await deps.sessions.readLog(sessionId);
    if (!history.some((r) => r.kind === 'run_end' && r.run_id === summary.run_id) || unfinishedRun(history)?.runId === summary.run_id) return;
    const session = await deps.sessions.getSession(sessionId);
    if (session) await finishInvestigation(deps, { session, runId: summary.run_id, history });
  } catch (error) {
    log.error('settling a webhook investigation failed', { session_id: sessionId, error: errorText(error) });
  }
}

/** The report: what was asked, how the run ended, and the final answer as the agent wrote it (Markdown). */
function reportOf(finished: FinishedRun, summary: SessionSummary, end: Extract<LogRecord, { kind: 'run_end' }>): string {
  const records = finished.history.filter((r) => r.run_id === finished.runId);
  const question = records.find((r) => r.kind === 'user_message');
  const text = finalText(records);
  const lines = [
    `# ${finished.session.title}`,
    '',
    `- Session: \`${finished.session.session_id}\``,
    `- Started by: webhook \`${summary.origin.hook_id}\`, event \`${summary.origin.event}\`, delivery \`${summary.origin.delivery_id}\``,
    `- Status: ${end.status}${end.reason ? ` (${end.reason})` : ''}, ${end.steps} step${end.steps === 1 ? '' : 's'}, $${end.usage.cost_usd.toFixed(4)}`,
    `- Finished: ${end.at}`,
  ];
  if (summary.warnings.length) lines.push('', '## Warnings', '', ...summary.warnings.map((w) => `- ${w}`));
  lines.push('', '## Answer', '', text.trim() || `_The run ended (${end.status}) without a final answer.${end.error ? ` ${end.error.message}` : ''}_`);
  if (question?.kind === 'user_message') lines.push('', '## Request', '', ...question.text.split('\n').map((l) => `> ${l}`));
  return `${lines.join('\n')}\n`;
}
