import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FinishedRun } from '@zero/runtime/sessions/runner-deps';
import { keys } from '@zero/runtime/store/keys';
import type { LogRecord } from '@zero/runtime/store/records';
import { startUnattended } from '@zero/runtime/sessions/start-unattended';
import { Table } from '@zero/runtime/store/table';
import { errorText, log } from '@zero/agent/log/log';
import type { ScheduleConfig, ScheduleStore } from './schedule-config';
import type { ScheduleTrigger } from './trigger';
import type { DeploymentDeps } from '../managed/start-deployment';

/** Failed runs in a row after which a schedule pauses itself. */
export const MAX_FAILURES_IN_A_ROW = 3;
/** How long a fire marker is kept (the table's TTL): long after any trigger for that time could be retried. */
const MARKER_TTL_SECONDS = 30 * 24 * 3600;
const SCHEDULE_AUTHOR = 'schedule:';

/** The author id of the messages a schedule writes, by which a run's end is traced back to its schedule. */
export const scheduleAuthorId = (scheduleId: string) => `${SCHEDULE_AUTHOR}${scheduleId}`;

/**
 * How long a marker's writer has to start its run before a sweep (or a later
 * trigger for the same time) takes the marker for its writer's death and
 * finishes the start itself.
 */
export const FIRE_GRACE_MS = 30_000;

/** A fire marker: the run a scheduled time started, when it was claimed, and how the start went (absent while under way, and on markers written before it was recorded). */
export interface FireMarker {
  session_id: string;
  run_id: string;
  /** ISO time the marker was written. */
  at?: string;
  outcome?: 'started' | 'failed';
}

/**
 * The session and run of a schedule's time, derived from both: whichever
 * trigger, retry or sweep starts it makes the same session, so the marker and
 * the session are made idempotently.
 */
export function firedIds(scheduleId: string, scheduledAt: string): { session_id: string; run_id: string } {
  const hash = createHash('sha256').update(`${scheduleId}\n${scheduledAt}`).digest('base64url').slice(0, 27);
  return { session_id: `sched_${hash}`, run_id: `run_sched_${hash}` };
}

/** Schedules in the bucket, their fire markers in the table, and (on AWS) their EventBridge Scheduler registrations. */
export interface Schedules {
  store: ScheduleStore;
  markers: ScheduleMarkers;
  trigger?: ScheduleTrigger;
}

/**
 * What firing a schedule needs: the schedules, and what starts an unattended session (its stores, queue,
 * and the message gate's budgets and rate limits) or a deployment's (its agent, environment and vaults).
 */
export interface ScheduleDeps extends DeploymentDeps {
  schedules: Schedules;
}

/**
 * One item per (schedule, scheduled time): whoever writes it first starts the
 * run. Beside them, the schedule's failed runs in a row, counted atomically:
 * runs that end together, or an administrator's change at the same moment,
 * lose no count and no change (the schedule's object is rewritten only to pause it).
 */
export class ScheduleMarkers {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  /** The run a scheduled time started, if a trigger claimed it. */
  async get(scheduleId: string, scheduledAt: string): Promise<FireMarker | undefined> {
    const item = await this.items.get({ pk: keys.schedule(scheduleId), sk: keys.scheduledFire(scheduledAt) }, { consistent: true });
    return item && markerOf(item);
  }

  /** The markers of the schedule's times from `from` (ISO) on, with their scheduled times. */
  async since(scheduleId: string, from: string): Promise<(FireMarker & { scheduled_at: string })[]> {
    const items = await this.items.query({ pk: keys.schedule(scheduleId), between: [keys.scheduledFire(from), keys.scheduledFire('~')] });
    return items.flatMap((item) => {
      const marker = markerOf(item);
      return marker ? [{ ...marker, scheduled_at: String(item.sk).slice(keys.scheduledFire('').length) }] : [];
    });
  }

  /** Records how the start of a scheduled time went. */
  async settle(scheduleId: string, scheduledAt: string, outcome: 'started' | 'failed'): Promise<void> {
    await this.items.update({ pk: keys.schedule(scheduleId), sk: keys.scheduledFire(scheduledAt) }, { set: 'SET outcome = :o', condition: 'attribute_exists(pk)', values: { ':o': outcome } });
  }

  /** Failed runs in a row. */
  async failures(scheduleId: string): Promise<number> {
    const item = await this.items.get({ pk: keys.schedule(scheduleId), sk: keys.scheduleFailures }, { consistent: true });
    return typeof item?.failures === 'number' ? item.failures : 0;
  }

  /** Counts one more failed run; the count it makes. */
  async addFailure(scheduleId: string): Promise<number> {
    const item = await this.items.update({ pk: keys.schedule(scheduleId), sk: keys.scheduleFailures }, { set: 'ADD failures :one', values: { ':one': 1 }, returns: 'UPDATED_NEW' });
    return Number(item?.failures ?? 1);
  }

  /** A completed run, or the schedule stored again: the count starts afresh. */
  async clearFailures(scheduleId: string): Promise<void> {
    await this.items.update({ pk: keys.schedule(scheduleId), sk: keys.scheduleFailures }, { set: 'SET failures = :zero', values: { ':zero': 0 } });
  }

  /** A conditional put; true when this trigger won the scheduled time. */
  claim(scheduleId: string, scheduledAt: string, run: { session_id: string; run_id: string }): Promise<boolean> {
    const now = Date.now();
    return this.items.putNew({
      pk: keys.schedule(scheduleId),
      sk: keys.scheduledFire(scheduledAt),
      v: 1,
      ...run,
      at: new Date(now).toISOString(),
      expires_at: Math.ceil(now / 1000) + MARKER_TTL_SECONDS,
    });
  }
}

/** A marker as stored: every version so far (v1, with or without `outcome`) has its session and run. */
function markerOf(item: Record<string, unknown>): FireMarker | undefined {
  if (typeof item.session_id !== 'string' || typeof item.run_id !== 'string') return undefined;
  return {
    session_id: item.session_id,
    run_id: item.run_id,
    ...(typeof item.at === 'string' ? { at: item.at } : {}),
    ...(item.outcome === 'started' || item.outcome === 'failed' ? { outcome: item.outcome } : {}),
  };
}

export type FireOutcome =
  | { status: 'started'; session_id: string; run_id: string }
  | { status: 'duplicate' }
  | { status: 'skipped'; reason: 'unknown' | 'paused' }
  | { status: 'failed'; error: string };

/**
 * Starts a schedule's run for one scheduled time: a new session owned by the
 * schedule's owner, the prompt in its inbox, the session on the run queue.
 * At most once per (schedule, scheduled time), whichever timer, retry or
 * second instance triggers it: the marker's conditional put decides, and the
 * session's id comes from (schedule, time). A trigger that finds a marker
 * whose start never finished (its writer died: no outcome after
 * `FIRE_GRACE_MS`) finishes it. A run that could not be started counts as a
 * failed run. Does not throw.
 */
export async function fireSchedule(deps: ScheduleDeps, id: string, scheduledAt: Date, now = Date.now()): Promise<FireOutcome> {
  const schedule = await deps.schedules.store.get(id);
  if (!schedule) return { status: 'skipped', reason: 'unknown' };
  if (schedule.paused) return { status: 'skipped', reason: 'paused' };
  const at = scheduledAt.toISOString();
  const ids = firedIds(id, at);
  if (!(await deps.schedules.markers.claim(id, at, ids))) return finishFire(deps, schedule, at, now);
  return start(deps, schedule, at, ids, false);
}

/**
 * Finishes the start of a scheduled time whose marker has no outcome past
 * `FIRE_GRACE_MS`: its writer died between the marker and the run's message
 * (or before it recorded the outcome). The session and message a start
 * already made are kept, and nothing is written twice. `duplicate` when
 * there is nothing to finish. Does not throw.
 */
export async function finishFire(deps: ScheduleDeps, schedule: ScheduleConfig, at: string, now = Date.now()): Promise<FireOutcome> {
  try {
    const marker = await deps.schedules.markers.get(schedule.id, at);
    if (!marker || marker.outcome || (marker.at && now - Date.parse(marker.at) < FIRE_GRACE_MS)) return { status: 'duplicate' };
    if (await runRecorded(deps, marker)) {
      await deps.schedules.markers.settle(schedule.id, at, 'started');
      return { status: 'duplicate' };
    }
    log.warn('finishing a scheduled start its process left', { schedule_id: schedule.id, scheduled_at: at });
    return await start(deps, schedule, at, marker, true);
  } catch (error) {
    log.error('finishing a scheduled start failed', { schedule_id: schedule.id, scheduled_at: at, error: errorText(error) });
    return { status: 'failed', error: String((error as Error)?.message ?? error) };
  }
}

/** Whether the marker's run has its message: in the session's inbox, or already in its log. */
async function runRecorded(deps: ScheduleDeps, marker: FireMarker): Promise<boolean> {
  if (!(await deps.sessions.getSession(marker.session_id))) return false;
  const [inbox, log] = await Promise.all([deps.sessions.peekInbox(marker.session_id, 100), deps.sessions.readLogTail(marker.session_id, 50)]);
  return inbox.some((m) => m.run_id === marker.run_id) || log.some((r) => r.run_id === marker.run_id);
}

async function start(deps: ScheduleDeps, schedule: ScheduleConfig, at: string, ids: { session_id: string; run_id: string }, again: boolean): Promise<FireOutcome> {
  try {
    await startRun(deps, schedule, at, { sessionId: ids.session_id, runId: ids.run_id, again });
    await deps.schedules.markers.settle(schedule.id, at, 'started');
    return { status: 'started', session_id: ids.session_id, run_id: ids.run_id };
  } catch (error) {
    await deps.sessions.deleteSession(ids.session_id).catch(() => undefined);
    const message = String((error as Error)?.message ?? error);
    log.error('a scheduled run could not be started', { schedule_id: schedule.id, scheduled_at: at, error: errorText(error) });
    await deps.schedules.markers.settle(schedule.id, at, 'failed').catch(() => undefined);
    await recordOutcome(deps.schedules, schedule.id, `the run for ${at} could not be started: ${message}`);
    return { status: 'failed', error: message };
  }
}

async function startRun(deps: ScheduleDeps, schedule: ScheduleConfig, at: string, job: { sessionId: string; runId: string; again: boolean }): Promise<void> {
  const author = { id: scheduleAuthorId(schedule.id), name: `Schedule (${schedule.id})` };
  // A Managed Agents deployment's schedule starts the deployment's session (its agent version, environment, vaults), loaded then.
  if (schedule.deployment_id) return (await import('../managed/start-deployment')).fireDeployment(deps, schedule, at, { ...job, author });
  await startUnattended(deps, {
    sessionId: job.sessionId,
    runId: job.runId,
    title: `${schedule.id}: ${schedule.prompt.trim().split('\n')[0] ?? ''}`,
    agentId: schedule.agent_id,
    projectId: schedule.project,
    owner: schedule.owner,
    members: schedule.members,
    grantAs: `schedule-${schedule.id}`,
    text: schedule.prompt,
    author,
    reason: 'schedule',
    again: job.again,
  });
}

/**
 * Counts a scheduled run's end: a run that failed (an error, a limit, a
 * budget) adds to the schedule's failures in a row, a completed one clears
 * them, a cancelled one leaves them. Other runs are left alone without a
 * read. Does not throw.
 */
export async function scheduledRunEnded(deps: Pick<ScheduleDeps, 'schedules'>, finished: FinishedRun): Promise<void> {
  const question = finished.history.find((r) => r.kind === 'user_message' && r.run_id === finished.runId);
  const author = question?.kind === 'user_message' ? question.author?.id : undefined;
  if (!author?.startsWith(SCHEDULE_AUTHOR)) return;
  const end = finished.history.find((r): r is Extract<LogRecord, { kind: 'run_end' }> => r.kind === 'run_end' && r.run_id === finished.runId);
  if (!end || end.status === 'cancelled') return;
  const id = author.slice(SCHEDULE_AUTHOR.length);
  try {
    if (end.status === 'completed') await recordOutcome(deps.schedules, id, undefined);
    else await recordOutcome(deps.schedules, id, `run ${finished.runId} ended with "${end.status}"${end.error ? `: ${end.error.message}` : ''}`);
  } catch (error) {
    log.error('recording a scheduled run failed', { schedule_id: id, error: errorText(error) });
  }
}

/**
 * A success (no failure) clears the count; the third failure in a row pauses
 * the schedule with that failure as the reason, and disables its trigger.
 */
async function recordOutcome({ store, markers, trigger }: Schedules, id: string, failure: string | undefined): Promise<void> {
  if (!failure) return markers.clearFailures(id);
  const failures = await markers.addFailure(id);
  if (failures < MAX_FAILURES_IN_A_ROW) return;
  const schedule = await store.get(id);
  if (!schedule || schedule.paused) return;
  log.warn('a schedule paused itself', { schedule_id: id, failures });
  const paused: ScheduleConfig = { ...schedule, paused: true, paused_reason: `${failures} failed runs in a row; the last: ${failure}`.slice(0, 2000) };
  await store.save(paused);
  // Were this to fail, the next firing finds the schedule paused and disables it then (fireScheduleJob).
  await trigger?.sync(paused);
}

/**
 * Fires a schedule for a run-queue job from EventBridge Scheduler. A
 * registration that outlived its schedule (deleted, or paused while the
 * change to EventBridge failed) is taken down or disabled here, so it stops
 * waking the worker. Throws only when that cleanup fails (the job is then
 * retried); the firing itself never throws.
 */
export async function fireScheduleJob(deps: ScheduleDeps, id: string, scheduledAt: Date): Promise<FireOutcome> {
  const outcome = await fireSchedule(deps, id, scheduledAt);
  const trigger = deps.schedules.trigger;
  if (outcome.status === 'skipped' && trigger) {
    const schedule = outcome.reason === 'paused' ? await deps.schedules.store.get(id) : undefined;
    if (schedule) await trigger.sync(schedule);
    else await trigger.remove(id);
    log.warn('a firing of a schedule that is gone or paused took its trigger down', { schedule_id: id, reason: outcome.reason });
  }
  return outcome;
}
