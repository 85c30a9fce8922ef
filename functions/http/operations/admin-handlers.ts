import { forgetSuspension } from '@zero/runtime/auth/suspensions';
import { notFound } from '@zero/agent/errors';
import { stopRun } from '@zero/runtime/sessions/stop-run';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { AppDeps } from '../env';
import { requireAdmin } from './budget-handlers';

const operationsOf = async (deps: AppDeps) => (await deps.budgets!()).operations;

/** The kill switch's work, loaded with the first admin request (see routes/admin.ts). Every action is audited. */
export const adminHandlers = {
  async listRuns(deps: AppDeps, me: AuthUser) {
    requireAdmin(me, 'lists the runs of every session');
    const runs = await (await deps.budgets!()).activeRuns();
    return {
      runs: runs.map((run) => ({
        run_id: run.run_id,
        session_id: run.session_id,
        user_id: run.user_id,
        agent_id: run.agent_id,
        started_at: run.started_at,
        steps: run.calls,
        cost_usd: run.cost_micros / 1_000_000,
        instance: run.instance,
      })),
    };
  },

  /** Stops a run at its next safe point, wherever it runs: the stop request is written on its session's lease. */
  async cancelRun(deps: AppDeps, me: AuthUser, runId: string) {
    requireAdmin(me, 'cancels runs');
    const operations = await operationsOf(deps);
    const run = await operations.activeRun(runId);
    if (!run) throw notFound(`no active run "${runId}"`, 'run_id');
    const stopped = await stopRun(deps, run.session_id, runId, 'cancelled');
    const audit = await operations.audit({ action: 'cancel_run', by: me.id, target: runId, detail: { session_id: run.session_id, user_id: run.user_id } });
    return { audit, stopped_runs: stopped ? [runId] : [] };
  },

  /** Refuses the user's requests from now on (403 `user_suspended`) and stops the runs they started. */
  async suspend(deps: AppDeps, me: AuthUser, userId: string, reason?: string) {
    requireAdmin(me, 'suspends users');
    const operations = await operationsOf(deps);
    await operations.suspend(userId, { by: me.id, at: new Date().toISOString(), ...(reason ? { reason } : {}) });
    forgetSuspension(userId);
    const theirs = (await operations.activeRuns()).filter((run) => run.user_id === userId);
    const stopped = await Promise.all(theirs.map(async (run) => ((await stopRun(deps, run.session_id, run.run_id, 'cancelled')) ? [run.run_id] : [])));
    const audit = await operations.audit({ action: 'suspend_user', by: me.id, target: userId, ...(reason ? { detail: { reason } } : {}) });
    return { audit, stopped_runs: stopped.flat() };
  },

  async resume(deps: AppDeps, me: AuthUser, userId: string) {
    requireAdmin(me, 'resumes users');
    const operations = await operationsOf(deps);
    await operations.resume(userId);
    forgetSuspension(userId);
    return { audit: await operations.audit({ action: 'resume_user', by: me.id, target: userId }), stopped_runs: [] };
  },

  async auditLog(deps: AppDeps, me: AuthUser) {
    requireAdmin(me, 'reads the audit log');
    return { records: await (await operationsOf(deps)).auditLog() };
  },
};
