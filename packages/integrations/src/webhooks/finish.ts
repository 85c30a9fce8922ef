import { finalText } from '@zero/agent/loop/history';
import { isWebhookAuthor } from '@zero/agent/loop/speaker';
import type { FinishedRun } from '@zero/runtime/sessions/drive';
import { DEFAULT_APPROVAL_TTL_MS, pendingApproval, waitingRun } from '@zero/runtime/sessions/approvals';
import { unfinishedRun } from '@zero/runtime/sessions/resume';
import type { LogRecord } from '@zero/runtime/store/records';
import { callbackTarget } from './callback';
import { writePdfReport, writeReportFile } from './report-file';
import type { SessionSummary } from './webhook-store';
import type { WebhookDeps } from './webhooks';
import { errorText, log } from '@zero/agent/log/log';

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
    // The callback and the GitHub report go out side by side: a slow callback receiver does not hold up the pull request's comment.
    await Promise.all([
      tell(deps, hook, CALLBACK_EVENT, finished.runId, summary, {
        run_id: finished.runId,
        status: end.status,
        report,
        ...(pdf && 'file' in pdf ? { pdf_report: pdf.file } : {}),
      }),
      hook.report?.github ? import('./github-report').then((m) => m.reportOnGitHub(deps, hook, summary, end, markdown)) : undefined,
    ]);
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
    const callIds = (calls: readonly { tool_call_id: string }[] | undefined) => (calls ?? []).map((p) => p.tool_call_id).join(' ');
    // The same wait seen again (a job delivered twice): its callback is out already.
    if (summary.status === 'awaiting_approval' && callIds(summary.pending) === callIds(pending)) return;

    const hook = await deps.webhooks.hooks.get(summary.origin.hook_id);
    const url = hook?.callback_url;
    const won = await deps.webhooks.store.updateSummary(
      sessionId,
      { status: 'awaiting_approval', pending, ...(url ? { callback: { target: callbackTarget(url), status: 'pending' as const, attempts: 0 } } : {}) },
      summary.status,
    );
    if (!won || !hook) return;
    const ids = pending.map((p) => p.tool_call_id).sort();
    await tell(deps, hook, NEEDS_ACTION_EVENT, `${waiting.runId}:${ids.join(',')}`, summary, { run_id: waiting.runId, status: 'needs_action', pending: ids }, {
      // What the callback carried before it was an event, without the calls' input (the model's words stay in Zero).
      pending: pending.map(({ input: _input, ...call }) => call),
    });
  } catch (error) {
    log.error('recording a waiting webhook investigation failed', { session_id: sessionId, error: errorText(error) });
  }
}

/**
 * Tells of an investigation's end or wait as the event `type`: subscribers
 * that asked for it get it like any event, and the hook's `callback_url`
 * gets it as the hook's implicit subscription (`hook:<id>`), signed with the
 * hook's secret in the Standard Webhooks format and, for receivers written
 * before, with the `X-Zero-*` headers; its body also carries the fields
 * those receivers read (`legacy`). Both go through the outbox (retried, and
 * swept if this process dies); the callback's outcome is recorded in the
 * summary as each attempt ends. Waits for this process's attempts.
 */
async function tell(
  deps: WebhookDeps,
  hook: { id: string; callback_url?: string },
  type: typeof CALLBACK_EVENT | typeof NEEDS_ACTION_EVENT,
  key: string,
  summary: SessionSummary,
  fields: { run_id: string; status: string; report?: Location; pdf_report?: Location; pending?: string[] },
  legacy: Record<string, unknown> = {},
): Promise<void> {
  const { enqueue, eventBody, publishEvent, sendAll } = await import('../subscriptions/publish');
  const { hookSubscriptionId } = await import('../subscriptions/outbox');
  const sessionId = summary.session_id;
  const event = {
    type,
    key,
    data: { session_id: sessionId, hook_id: hook.id, ...(summary.project_id ? { project_id: summary.project_id } : {}), ...fields, summary_path: `/api/v2/sessions/${sessionId}/summary` },
  };
  const subscribers = publishEvent(deps, event);
  if (hook.callback_url) {
    const body = eventBody(event);
    // The event, and beside it the top-level fields the callback had before it was one (`hook_id`, `event`, `delivery_id`, `status`, `report`…).
    const callback = JSON.stringify({ ...body, hook_id: hook.id, event: summary.origin.event, delivery_id: summary.origin.delivery_id, session_id: sessionId, ...fields, ...legacy, summary_path: body.data.summary_path });
    await sendAll(deps, await enqueue(deps, [hookSubscriptionId(hook.id)], event, callback));
  }
  // Other subscribers' records are written (durable); their deliveries go on without holding up the investigation's end.
  void (await subscribers).sent;
}

/** Where a report is (its S3 key and path), never its text. */
type Location = { key: string; path: string; project_id?: string; bytes?: number; pages?: number };

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
