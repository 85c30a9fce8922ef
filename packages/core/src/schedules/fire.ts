import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FinishedRun } from '../sessions/runner-deps';
import { keys } from '../store/keys';
import type { LogRecord } from '../store/records';
import { startUnattended, type UnattendedDeps } from '../sessions/start-unattended';
import { Table } from '../store/table';
import { errorText, log } from '../log';
import type { ScheduleConfig, ScheduleStore } from './schedule-config';
import type { ScheduleTrigger } from './trigger';

/** Failed runs in a row after which a schedule pauses itself. */
export const MAX_FAILURES_IN_A_ROW = 3;
/** How long a fire marker is kept (the table's TTL): long after any trigger for that time could be retried. */
const MARKER_TTL_SECONDS = 30 * 24 * 3600;
const SCHEDULE_AUTHOR = 'schedule:';

/** The author id of the messages a schedule writes, by which a run's end is traced back to its schedule. */
export const scheduleAuthorId = (scheduleId: string) => `${SCHEDULE_AUTHOR}${scheduleId}`;

/** Schedules in the bucket, their fire markers in the table, and (on AWS) their EventBridge Scheduler registrations. */
export interface Schedules {
  store: ScheduleStore;
  markers: ScheduleMarkers;
  trigger?: ScheduleTrigger;
}

/** What firing a schedule needs: the schedules, and what starts an unattended session (its stores, queue, and the message gate's budgets and rate limits). */
export interface ScheduleDeps extends UnattendedDeps {
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
  async get(scheduleId: string, scheduledAt: string): Promise<{ session_id: string; run_id: string } | undefined> {
    const item = await this.items.get({ pk: keys.schedule(scheduleId), sk: keys.scheduledFire(scheduledAt) }, { consistent: true });
    return item && typeof item.session_id === 'string' && typeof item.run_id === 'string' ? { session_id: item.session_id, run_id: item.run_id } : undefined;
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

export type FireOutcome =
  | { status: 'started'; session_id: string; run_id: string }
  | { status: 'duplicate' }
  | { status: 'skipped'; reason: 'unknown' | 'paused' }
  | { status: 'failed'; error: string };

/**
 * Starts a schedule's run for one scheduled time: a new session owned by the
 * schedule's owner, the prompt in its inbox, the session on the run queue.
 * At most once per (schedule, scheduled time), whichever timer, retry or
 * second instance triggers it: the marker's conditional put decides. A run
 * that could not be started counts as a failed run. Does not throw.
 */
export async function fireSchedule(deps: ScheduleDeps, id: string, scheduledAt: Date): Promise<FireOutcome> {
  const schedule = await deps.schedules.store.get(id);
  if (!schedule) return { status: 'skipped', reason: 'unknown' };
  if (schedule.paused) return { status: 'skipped', reason: 'paused' };

  const sessionId = randomUUID();
  const runId = `run_${randomUUID()}`;
  const at = scheduledAt.toISOString();
  if (!(await deps.schedules.markers.claim(id, at, { session_id: sessionId, run_id: runId }))) return { status: 'duplicate' };

  try {
    await startRun(deps, schedule, { sessionId, runId });
    return { status: 'started', session_id: sessionId, run_id: runId };
  } catch (error) {
    await deps.sessions.deleteSession(sessionId).catch(() => undefined);
    const message = String((error as Error)?.message ?? error);
    log.error('a scheduled run could not be started', { schedule_id: id, scheduled_at: at, error: errorText(error) });
    await recordOutcome(deps.schedules, id, `the run for ${at} could not be started: ${message}`);
    return { status: 'failed', error: message };
  }
}

async function startRun(deps: ScheduleDeps, schedule: ScheduleConfig, job: { sessionId: string; runId: string }): Promise<void> {
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
    author: { id: scheduleAuthorId(schedule.id), name: `Schedule (${schedule.id})` },
    reason: 'schedule',
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
