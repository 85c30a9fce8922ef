import type { ScheduleConfig } from '../schedules/schedule-config';
import type { DeploymentRecord, DeploymentRunRecord } from './deployment-store';

/** How many upcoming times a deployment's schedule shows. */
const UPCOMING = 5;

/**
 * A deployment as the Managed Agents API shows it (`BetaManagedAgentsDeployment`). Its status is
 * `paused` while its owner paused it (`paused_reason: manual`) or while its schedule paused itself after
 * failed runs in a row (`paused_reason: error`, `unknown_error`: the schedule's reason is free text).
 * `upcoming_runs_at` are croner's next times in the schedule's time zone (none once archived);
 * `last_run_at` is the newest run the schedule started a session for.
 */
export function deploymentResource(
  deployment: DeploymentRecord,
  state: { schedule?: ScheduleConfig; runs: readonly DeploymentRunRecord[]; upcoming: (expression: string, timezone: string, count: number) => Date[] },
) {
  const selfPaused = !deployment.paused && !deployment.archived_at && state.schedule?.paused === true;
  const paused = (deployment.paused || selfPaused) && !deployment.archived_at;
  const lastScheduled = state.runs.find((r) => r.deployment_id === deployment.id && r.trigger.type === 'schedule' && r.session_id);
  return {
    type: 'deployment' as const,
    id: deployment.id,
    agent: { type: 'agent' as const, id: deployment.agent.id, version: deployment.agent.version },
    archived_at: deployment.archived_at,
    budget: null,
    created_at: deployment.created_at,
    description: deployment.description,
    environment_id: deployment.environment_id,
    initial_events: deployment.initial_events,
    metadata: deployment.metadata,
    name: deployment.name,
    paused_reason: !paused ? null : deployment.paused ? { type: 'manual' as const } : { type: 'error' as const, error: { type: 'unknown_error' as const } },
    resources: deployment.resources.flatMap((r) => (r.type === 'github_repository' ? [{ type: r.type, url: r.url, checkout: r.checkout, mount_path: `/workspace/${r.mount_path}` }] : [])),
    schedule: deployment.schedule && {
      type: 'cron' as const,
      expression: deployment.schedule.expression,
      timezone: deployment.schedule.timezone,
      last_run_at: lastScheduled?.created_at ?? null,
      upcoming_runs_at: deployment.archived_at ? [] : state.upcoming(deployment.schedule.expression, deployment.schedule.timezone, UPCOMING).map((d) => d.toISOString()),
    },
    status: paused ? ('paused' as const) : ('active' as const),
    updated_at: deployment.updated_at,
    vault_ids: deployment.vault_ids,
  };
}

/** A run as the API shows it (`BetaManagedAgentsDeploymentRun`): exactly one of `session_id` and `error` is set. */
export function deploymentRunResource(run: DeploymentRunRecord) {
  return {
    type: 'deployment_run' as const,
    id: run.id,
    agent: { type: 'agent' as const, id: run.agent.id, version: run.agent.version },
    created_at: run.created_at,
    deployment_id: run.deployment_id,
    error: run.error,
    session_id: run.session_id,
    trigger_context: run.trigger.type === 'schedule' ? { type: 'schedule' as const, scheduled_at: run.trigger.scheduled_at } : { type: 'manual' as const },
  };
}
