import { randomUUID } from 'node:crypto';
import { tierModel } from '@zero/agent/model/aliases';
import { errorText, log } from '@zero/agent/log/log';
import { mapLimit } from '../projects/project-store';
import { LeaseLostError } from '../store/lease-store';
import type { SessionRunnerDeps } from '../sessions/runner-deps';
import { watchSession } from '../sessions/watch-session';
import { gradeAgainstRubric } from '@zero/agent/loop/grade';
import { rubricOf } from './dataset';
import type { Dataset, EvalCase, EvalVariant } from '@zero/agent/wire/evals';
import { caseOutcome } from './case-outcome';
import { runChecks } from './checks';
import { caseSessionId } from './eval-run';
import type { CaseResult, EvalRun } from '@zero/agent/wire/evals';
import type { EvalStore } from './eval-store';

/**
 * What driving an eval run needs: a session runner's deps (its sessions go through the worker queue), the
 * eval store, and what reports a run as it ends (a GitHub check run: the integrations' `github/eval-check.ts`):
 * called once with the ended run before it is stored, it answers the run to store (with what it reported)
 * and must not throw.
 */
export type EvalDeps = SessionRunnerDeps & { evals: EvalStore; reportEnded?: (run: EvalRun) => Promise<EvalRun> };

/** A case's project copy: a project of its own, so that its tools' writes touch neither the original nor another case's. */
export const caseProjectId = (sessionId: string) => `evals/${sessionId}`;
/** Whom a case's project copy is granted through (its session's tools may use it). */
const grantOf = (runId: string) => `eval-${runId}`;
/** The run id of a case's n-th message: deterministic, so a resumed driver finds what it queued. */
const messageRunId = (sessionId: string, n: number) => `${sessionId}_m${n}`;

/** A new eval run's id. */
export const newEvalRunId = () => `evr_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/**
 * Carries an eval run on until every case has a result under every variant: each case in a fresh session
 * (a deterministic id: a resumed driver finds the session a dead one started, and never starts a second),
 * its messages queued for the worker, then checked and graded once its runs have ended; the result is
 * written once. Held by a lease, so one driver at a time; 'busy' when another holds it. A driver that dies
 * loses nothing: the next one skips cases with a result and waits on sessions already started.
 */
export async function driveEvalRun(deps: EvalDeps, runId: string, options: { signal?: AbortSignal } = {}): Promise<'completed' | 'cancelled' | 'busy' | 'missing'> {
  const acquired = await deps.leases.acquire(`evalrun:${runId}`, deps.instanceId, runId);
  if (!acquired) return 'busy';
  const lease = acquired.lease;
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(options.signal!.reason), { once: true });
  const heartbeat = setInterval(() => {
    deps.leases.heartbeat(lease).catch((error) => {
      if (LeaseLostError.isInstance(error)) stop.abort('the eval run lost its lease to another driver');
    });
  }, Math.max(200, deps.leases.ttlMs / 3));
  try {
    const run = await deps.evals.getRun(runId);
    if (!run) return 'missing';
    if (run.status !== 'running') return run.status;
    const dataset = await deps.evals.getDataset(run.dataset, run.dataset_version);
    if (!dataset) throw new Error(`dataset ${run.dataset} v${run.dataset_version} is gone`);
    const done = new Set((await deps.evals.results(runId)).map((r) => `${r.variant}/${r.case_id}`));
    const slots = run.variants.flatMap((variant, vi) => dataset.cases.map((c, ci) => ({ variant, vi, c, ci }))).filter((s) => !done.has(`${s.variant.name}/${s.c.id}`));
    let cancelled = false;
    await mapLimit(slots, run.concurrency, async (slot) => {
      if (stop.signal.aborted || cancelled) return;
      if ((await deps.evals.getRun(runId))?.status === 'cancelled') {
        cancelled = true;
        return;
      }
      const result = await runCase(deps, run, dataset, slot, stop.signal);
      if (result && !stop.signal.aborted) await deps.evals.putResult(runId, result);
    });
    if (stop.signal.aborted) throw new Error(String(stop.signal.reason ?? 'aborted'));
    const latest = (await deps.evals.getRun(runId)) ?? run;
    if (cancelled || latest.status === 'cancelled') return 'cancelled';
    const completed: EvalRun = { ...latest, status: 'completed', completed_at: new Date().toISOString() };
    // Reported once: only while this driver still holds the run (the heartbeat throws once another took it over,
    // and renews the lease for the report's time), and not again when a driver before it reported.
    await deps.leases.heartbeat(lease);
    await deps.evals.putRun(latest.github_check?.report ? completed : ((await deps.reportEnded?.(completed)) ?? completed));
    return 'completed';
  } finally {
    clearInterval(heartbeat);
    await deps.leases.release(lease).catch(() => undefined);
  }
}

/**
 * Starts a driver for the run in the background unless one holds it (every read of a running eval run
 * calls this, as every read of a session wakes it): a run whose driver died goes on.
 */
export function wakeEvalRun(deps: EvalDeps, run: EvalRun): void {
  if (run.status !== 'running') return;
  void deps.leases
    .inspect(`evalrun:${run.id}`)
    .then((lease) => (lease?.active ? undefined : driveEvalRun(deps, run.id)))
    .catch((error) => log.error('eval run driver failed', { eval_run_id: run.id, error: errorText(error) }));
}

type Slot = { variant: EvalVariant; vi: number; c: EvalCase; ci: number };

/** One case under one variant: its session started (or found), its runs awaited, then checked and graded. Undefined when aborted. */
async function runCase(deps: EvalDeps, run: EvalRun, dataset: Dataset, slot: Slot, signal: AbortSignal): Promise<CaseResult | undefined> {
  const sessionId = caseSessionId(run.id, slot.vi, slot.ci);
  const projectId = slot.c.project_id ? caseProjectId(sessionId) : undefined;
  await startCaseSession(deps, run, slot, sessionId, projectId);
  const history = await untilAnswered(deps, sessionId, slot.c.messages.length, signal);
  if (!history) return undefined;
  const outcome = caseOutcome(history);
  const checks = await runChecks([...(dataset.checks ?? []), ...(slot.c.checks ?? [])], outcome, projectId ? async (path) => {
    const read = await deps.projects.read(projectId, 'files', path, 1024 * 1024);
    return read ? new TextDecoder().decode(read.body) : undefined;
  } : undefined);
  const rubric = rubricOf(dataset, slot.c);
  let grade: CaseResult['grade'];
  if (rubric) {
    const withReference = slot.c.reference ? `${rubric}\n\nA reference answer, for comparison (the result need not match its wording):\n${slot.c.reference}` : rubric;
    const model = run.grader_model ?? tierModel('standard', deps.tiers ?? {}, deps.defaultModel);
    try {
      const g = await gradeAgainstRubric(deps.provider, model, { rubric: withReference, task: slot.c.messages.join('\n\n'), result: outcome.answer }, { signal });
      grade = { verdict: g.verdict, score: g.score, reasons: g.reasons, cost_usd: g.usage.cost_usd };
    } catch (error) {
      if (signal.aborted) return undefined;
      grade = { verdict: 'failed', score: 0, reasons: `the grader could not run: ${errorText(error)}`, cost_usd: 0 };
    }
  }
  const parts = [...(grade ? [grade.score] : []), ...(checks.length ? [checks.filter((c) => c.pass).length / checks.length] : [])];
  const completed = outcome.status === 'completed';
  const score = completed ? (parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : 1) : 0;
  return {
    v: 1,
    case_id: slot.c.id,
    variant: slot.variant.name,
    session_id: sessionId,
    status: outcome.status,
    answer: outcome.answer,
    tool_calls: outcome.toolCalls,
    steps: outcome.steps,
    usage: outcome.usage,
    latency_ms: outcome.latencyMs,
    checks,
    ...(grade ? { grade } : {}),
    score,
    pass: completed && checks.every((c) => c.pass) && (!grade || grade.verdict === 'satisfied'),
    completed_at: new Date().toISOString(),
  };
}

/**
 * The case's session, created once with its project copy, budget and messages; what a dead driver
 * left half done is finished (a message neither in the inbox nor the log is queued), then the worker
 * queue is asked to carry the session on (idempotent: a session with nothing to do does nothing).
 */
async function startCaseSession(deps: EvalDeps, run: EvalRun, slot: Slot, sessionId: string, projectId: string | undefined) {
  const owner = { user_id: run.created_by };
  let session = await deps.sessions.getSession(sessionId);
  if (!session) {
    if (projectId && slot.c.project_id) await copyProject(deps, slot.c.project_id, projectId);
    const now = new Date().toISOString();
    session = await deps.sessions.createSession(
      { session_id: sessionId, title: `eval ${run.dataset} v${run.dataset_version} · ${slot.variant.name} · ${slot.c.id}`, agent_id: slot.variant.agent_id ?? deps.defaultAgentId, project_id: projectId, created_by: owner.user_id, created_at: now, updated_at: now },
      owner,
    ).catch(async (error) => (await deps.sessions.getSession(sessionId)) ?? Promise.reject(error));
  }
  if (projectId) await deps.projectAccess.grantHook(projectId, grantOf(run.id), [{ ...owner, role: 'owner' }]);
  if (run.max_cost_usd_per_case !== undefined) await (await deps.budgets?.())?.setSessionBudget(sessionId, run.max_cost_usd_per_case, owner.user_id);
  const [inbox, history] = await Promise.all([deps.sessions.peekInbox(sessionId, 100), deps.sessions.readLog(sessionId)]);
  const known = new Set([...inbox.map((m) => m.run_id), ...history.map((r) => r.run_id)]);
  const v = slot.variant;
  for (const [n, text] of slot.c.messages.entries()) {
    const runId = messageRunId(sessionId, n);
    if (known.has(runId)) continue;
    await deps.sessions.enqueue(sessionId, {
      run_id: runId,
      text: n === 0 && v.prompt_prefix ? `${v.prompt_prefix}\n\n${text}` : text,
      author: { id: owner.user_id },
      ...(v.agent_id ? { agent_id: v.agent_id } : {}),
      ...(projectId ? { project_id: projectId } : {}),
      ...(v.model ? { model: v.model } : {}),
      ...(v.complexity ? { complexity: v.complexity } : {}),
      ...(v.thinking_budget !== undefined ? { thinking_budget: v.thinking_budget } : {}),
      ...(v.max_tool_iterations ? { max_tool_iterations: v.max_tool_iterations } : {}),
      ...(v.system_prompt || v.append_system_prompt ? { system_prompt: { ...(v.system_prompt ? { replace: v.system_prompt } : {}), ...(v.append_system_prompt ? { append: v.append_system_prompt } : {}) } } : {}),
      at: new Date().toISOString(),
    });
  }
  await deps.queue.send({ session_id: sessionId, reason: `eval run ${run.id}` });
}

/** Copies a project's files into the case's copy (written once: a copy that exists is kept as the case's runs left it). */
async function copyProject(deps: EvalDeps, from: string, to: string) {
  if (await deps.projects.getProject(to)) return;
  const files = await deps.projects.list(from, 'files');
  const read = await mapLimit(files, 16, async (f) => {
    const got = await deps.projects.read(from, 'files', f.path);
    return got ? [{ path: f.path, body: got.body, ...(got.contentType ? { contentType: got.contentType } : {}) }] : [];
  });
  await deps.projects.putFiles(to, read.flat());
}

/**
 * Follows the case's session until each of its messages' runs has ended (or waits for a person: the
 * case ends there). The session's log then; undefined when aborted.
 */
async function untilAnswered(deps: EvalDeps, sessionId: string, messages: number, signal: AbortSignal): Promise<readonly import('../store/records').LogRecord[] | undefined> {
  const answered = async () => {
    const history = await deps.sessions.readLog(sessionId);
    const ended = new Set(history.filter((r) => (r.kind === 'run_end' || r.kind === 'run_wait') && !r.parent_run_id).map((r) => r.run_id));
    const all = Array.from({ length: messages }, (_, n) => messageRunId(sessionId, n)).every((id) => ended.has(id));
    // An outcome's revision (none here) or any run the session queued itself is awaited too.
    return all && !(await deps.sessions.peekInbox(sessionId, 1)).length && !unfinished(history) ? history : undefined;
  };
  const now = await answered();
  if (now) return now;
  const watching = new AbortController();
  const onAbort = () => watching.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const event of watchSession(deps, sessionId, { signal: watching.signal })) {
      if (event.type !== 'done') continue;
      const history = await answered();
      if (history) return history;
    }
    return undefined;
  } finally {
    signal.removeEventListener('abort', onAbort);
    watching.abort();
  }
}

function unfinished(history: readonly import('../store/records').LogRecord[]): boolean {
  const top = history.filter((r) => !r.parent_run_id);
  const started = new Set(top.filter((r) => r.kind === 'user_message').map((r) => r.run_id));
  for (const r of top) if (r.kind === 'run_end' || r.kind === 'run_wait') started.delete(r.run_id);
  return started.size > 0;
}

