import { randomUUID } from 'node:crypto';
import type { AgentCatalog } from '@zero/agent/definitions/catalog';
import { ZeroError } from '@zero/agent/errors';
import { errorText, log } from '@zero/agent/log/log';
import type { EnvironmentStore } from '@zero/runtime/environments/environment-store';
import { startUnattended, type UnattendedDeps } from '@zero/runtime/sessions/start-unattended';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { writeSessionRecord, type ManagedSessionRecord } from '@zero/runtime/store/session-record';
import type { VaultStore } from '@zero/runtime/vaults/vault-store';
import type { ScheduleConfig, ScheduleStore } from '../schedules/schedule-config';
import type { ScheduleTrigger } from '../schedules/trigger';
import type { ScheduleMarkers } from '../schedules/fire';
import { enabledToolsetTools, environmentClientTools } from '../environment-store/self-hosted';
import { customToolsOf } from './agent-document';
import { managedAgentStore } from './agent-store';
import { pickVersion, resolveAgent } from './resolve-agent';
import { promptOf } from './deployment-params';
import { DeploymentStore, deploymentScheduleId, manualRunId, scheduledRunId, type DeploymentRecord, type DeploymentRunRecord, type RunError } from './deployment-store';

/** What starting a deployment's session needs: what starts any unattended session, and where its agent, environment and vaults are. */
export interface DeploymentDeps extends UnattendedDeps {
  artifacts: ArtifactStore;
  catalog: AgentCatalog;
  defaultModel: string;
  environments: EnvironmentStore;
  /** The vault store, loaded with its first use (it is not in a cold start). */
  vaults: () => Promise<VaultStore>;
  schedules: { store: ScheduleStore; markers: ScheduleMarkers; trigger?: ScheduleTrigger };
}

/** Why a session could not be started, in the API's words (`BetaManagedAgentsDeploymentRun.error`). */
class RunRefused extends Error {
  constructor(readonly refusal: RunError) {
    super(refusal.message);
  }
}
const refused = (type: string, message: string) => new RunRefused({ type, message });

/** The run's error from what went wrong: a refusal as named, a rate limit or budget as such, anything else unknown. */
function runErrorOf(error: unknown): RunError {
  if (error instanceof RunRefused) return error.refusal;
  if (ZeroError.isInstance(error) && error.status === 429) return { type: 'session_rate_limited_error', message: error.message };
  if (ZeroError.isInstance(error) && error.status < 500) return { type: 'session_creation_rejected_error', message: error.message };
  return { type: 'unknown_error', message: 'the session could not be started; the server log has the cause' };
}

/**
 * Starts one session of the deployment as its owner: the pinned agent version in the deployment's
 * environment, with its repositories and vaults, and its `user.message` queued for the run. What is
 * gone or archived since the deployment was made (the agent, the environment, a vault) refuses the
 * start with the API's error type. Throws; the session of a failed start is deleted by the caller.
 */
async function startSession(deps: DeploymentDeps, deployment: DeploymentRecord, job: { sessionId: string; runId: string; author: { id: string; name: string }; reason: string; again?: boolean }) {
  const agent = await resolveAgent({ ...deps, managedAgents: managedAgentStore(deps.artifacts.s3, deps.artifacts.bucket) }, deployment.agent.id, 'agent').catch(() => {
    throw refused('session_creation_rejected_error', `the deployment's agent "${deployment.agent.id}" no longer exists`);
  });
  if (agent.archived_at) throw refused('agent_archived_error', `agent "${deployment.agent.id}" is archived`);
  const { doc, catalogId } = pickVersion(agent, agent.kind === 'markdown' ? undefined : deployment.agent.version, 'agent.version');
  const environment = await deps.environments.get(deployment.environment_id);
  if (!environment) throw refused('environment_not_found_error', `environment "${deployment.environment_id}" no longer exists`);
  if (environment.archived_at) throw refused('environment_archived_error', `environment "${deployment.environment_id}" is archived`);
  for (const id of deployment.vault_ids) {
    const vault = await (await deps.vaults()).reachVault(deployment.owner.user_id, id).catch(() => undefined);
    if (!vault) throw refused('vault_not_found_error', `vault "${id}" no longer exists`);
    if (vault.archived_at) throw refused('vault_archived_error', `vault "${id}" is archived`);
  }
  const customTools = customToolsOf(doc).map(({ name, description, input_schema }) => ({ name, description, input_schema }));
  const record: ManagedSessionRecord = {
    v: 1,
    agent_id: doc.id,
    agent_version: doc.version,
    environment_id: environment.id,
    title: deployment.name,
    metadata: {},
    archived_at: null,
    custom_tools: customTools,
    ...(environment.kind === 'self_hosted' ? { environment_tools: environmentClientTools(enabledToolsetTools(doc)) } : {}),
    ...(deployment.resources.length ? { resources: deployment.resources } : {}),
    ...(deployment.vault_ids.length ? { vaults: { owner: deployment.owner.user_id, ids: deployment.vault_ids } } : {}),
  };
  const session = await startUnattended(deps, {
    sessionId: job.sessionId,
    runId: job.runId,
    title: deployment.name,
    agentId: catalogId,
    owner: deployment.owner,
    members: [],
    grantAs: `deployment-${deployment.id}`,
    text: promptOf(deployment.initial_events[0]!.content),
    author: job.author,
    clientTools: customTools,
    reason: job.reason,
    again: job.again,
    // The record is durable before the run is queued: the run reads its environment from it.
    alongside: () => [writeSessionRecord(deps.artifacts, job.sessionId, record)],
  });
  return { session, agent: { id: doc.id, version: doc.version } };
}

/**
 * `deployments.run`: starts a session now, whatever the schedule and even while paused, and records
 * the run (`trigger_context: manual`): its session, or why none was started. Does not throw for a
 * start that failed: the run carries the error, as the API's does.
 */
export async function runDeploymentNow(deps: DeploymentDeps, deployment: DeploymentRecord, caller: { id: string; name?: string }): Promise<DeploymentRunRecord> {
  const sessionId = randomUUID();
  const base = { v: 1 as const, id: manualRunId(deployment.id), deployment_id: deployment.id, agent: deployment.agent, trigger: { type: 'manual' as const }, created_at: new Date().toISOString() };
  let run: DeploymentRunRecord;
  try {
    const started = await startSession(deps, deployment, { sessionId, runId: `run_${randomUUID()}`, author: { id: caller.id, name: caller.name ?? caller.id }, reason: 'deployment' });
    run = { ...base, agent: started.agent, session_id: started.session.session_id, error: null };
  } catch (error) {
    if (error instanceof RunRefused) log.info('a deployment run started no session', { deployment_id: deployment.id, error: error.refusal.type });
    else log.warn('a deployment run could not start its session', { deployment_id: deployment.id, error: errorText(error) });
    await deps.sessions.deleteSession(sessionId).catch(() => undefined);
    run = { ...base, session_id: null, error: runErrorOf(error) };
  }
  await new DeploymentStore(deps.artifacts).putRun(deployment.owner.user_id, run);
  return run;
}

/**
 * Starts the session of a deployment's scheduled time, as Zero's schedule `schedule` fires it (the
 * schedule's marker makes it once per time; `ids` are the schedule's), and records the run
 * (`trigger_context: schedule`). A start that fails is recorded, then thrown, so the schedule counts
 * it among its failed runs in a row (and pauses itself at the third).
 */
export async function fireDeployment(
  deps: DeploymentDeps,
  schedule: ScheduleConfig,
  scheduledAt: string,
  job: { sessionId: string; runId: string; author: { id: string; name: string }; again: boolean },
): Promise<void> {
  const store = new DeploymentStore(deps.artifacts);
  const deployment = await store.get(schedule.owner.user_id, schedule.deployment_id!);
  if (!deployment || deployment.archived_at) throw new Error(`deployment "${schedule.deployment_id}" is gone or archived`);
  const base = { v: 1 as const, id: scheduledRunId(deployment.id, scheduledAt), deployment_id: deployment.id, agent: deployment.agent, trigger: { type: 'schedule' as const, scheduled_at: scheduledAt } };
  try {
    const started = await startSession(deps, deployment, { ...job, reason: 'schedule' });
    await store.putRun(deployment.owner.user_id, { ...base, agent: started.agent, session_id: started.session.session_id, error: null, created_at: new Date().toISOString() });
  } catch (error) {
    await store.putRun(deployment.owner.user_id, { ...base, session_id: null, error: runErrorOf(error), created_at: new Date().toISOString() }).catch(() => undefined);
    throw error;
  }
}

/**
 * Makes the deployment's Zero schedule what the deployment says: none when it has no cron or is
 * archived; else its cron and time zone, paused while the deployment is paused, or while the schedule
 * paused itself after failed runs (`unpause` ends that, and starts the count afresh). Registered
 * with EventBridge Scheduler where there is one. Called after the deployment is stored: a schedule
 * that could not be written is written by the deployment's next change.
 */
export async function syncDeploymentSchedule(
  deps: Pick<DeploymentDeps, 'schedules'>,
  deployment: DeploymentRecord,
  /** The id the deployment's sessions run under, asked for only when the schedule stays. */
  catalogId: () => Promise<string>,
  options: { unpause?: boolean } = {},
): Promise<ScheduleConfig | undefined> {
  const { store, markers, trigger } = deps.schedules;
  const id = deploymentScheduleId(deployment.id);
  if (!deployment.schedule || deployment.archived_at) {
    if (await store.delete(id)) await trigger?.remove(id);
    return undefined;
  }
  const existing = await store.get(id);
  const selfPaused = !options.unpause && existing?.paused && existing.paused_reason !== undefined ? existing.paused_reason : undefined;
  const { schedule } = await store.put(id, {
    cron: deployment.schedule.expression,
    timezone: deployment.schedule.timezone,
    agent_id: await catalogId(),
    prompt: promptOf(deployment.initial_events[0]!.content),
    owner: deployment.owner,
    members: [],
    paused: deployment.paused || selfPaused !== undefined,
    deployment_id: deployment.id,
    ...(selfPaused !== undefined ? { paused_reason: selfPaused } : {}),
  });
  if (selfPaused === undefined) await markers.clearFailures(id);
  await trigger?.sync(schedule);
  return schedule;
}
