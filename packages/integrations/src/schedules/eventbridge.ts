import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { ZeroError } from '@zero/agent/errors';
import { schedulerExpressions } from './aws-cron';
import type { ScheduleConfig } from './schedule-config';
import type { ScheduleTrigger } from './trigger';

/** Where a deployment's schedules are registered: its schedule group, the role EventBridge sends with, the run queue. */
export interface EventBridgeSchedulerConfig {
  /** The schedule group Zero owns (sst.config.ts); its schedules are named after Zero's schedule ids. */
  group: string;
  /** The role EventBridge Scheduler assumes to send to the run queue (sqs:SendMessage on it, nothing else). */
  roleArn: string;
  /** The run queue's ARN: each firing puts a `schedule_fire` job on it. */
  queueArn: string;
  region?: string;
  /** An EventBridge Scheduler-compatible endpoint (the tests' fake); unset in AWS. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * What the run queue receives when a schedule fires: the schedule's id and
 * the time it was due, filled in by EventBridge Scheduler from its context
 * attribute, so a retried or repeated firing names the same time.
 */
const fireInput = (id: string) => JSON.stringify({ schedule_fire: { id, at: '<aws.scheduler.scheduled-time>' } });

/**
 * Schedules as EventBridge Scheduler schedules, one per Zero schedule (two
 * when its cron restricts both day fields: see `schedulerExpressions`), in the
 * deployment's own group, in the schedule's time zone (EventBridge handles
 * DST), disabled while the schedule is paused. The AWS SDK client is loaded
 * with the first change, not at cold start.
 */
export class EventBridgeScheduleTrigger implements ScheduleTrigger {
  private client?: Promise<{ sdk: typeof import('@aws-sdk/client-scheduler'); client: SchedulerClient }>;

  constructor(private readonly config: EventBridgeSchedulerConfig) {}

  async sync(schedule: ScheduleConfig): Promise<void> {
    const expressions = schedulerExpressions(schedule.cron);
    await this.unless('registering', schedule.id, () =>
      Promise.all(namesOf(schedule.id).map((name, i) => (expressions[i] ? this.upsert(name, expressions[i], schedule) : this.deleteIfThere(name)))),
    );
  }

  async remove(id: string): Promise<void> {
    await this.unless('removing', id, () => Promise.all(namesOf(id).map((name) => this.deleteIfThere(name))));
  }

  /** Updates the schedule, or creates it when EventBridge has none by that name (or has one by the time it is created). */
  private async upsert(name: string, expression: string, schedule: ScheduleConfig): Promise<void> {
    const { sdk, client } = await this.connect();
    const input = {
      Name: name,
      GroupName: this.config.group,
      Description: `Zero schedule "${schedule.id}"`,
      ScheduleExpression: expression,
      ScheduleExpressionTimezone: schedule.timezone,
      State: schedule.paused ? sdk.ScheduleState.DISABLED : sdk.ScheduleState.ENABLED,
      FlexibleTimeWindow: { Mode: sdk.FlexibleTimeWindowMode.OFF },
      Target: {
        Arn: this.config.queueArn,
        RoleArn: this.config.roleArn,
        Input: fireInput(schedule.id),
        // A firing that cannot reach the queue is retried for an hour; a later one would be stale.
        RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 20 },
      },
    };
    try {
      await client.send(new sdk.UpdateScheduleCommand(input));
    } catch (error) {
      if (!(error instanceof sdk.ResourceNotFoundException)) throw error;
      try {
        await client.send(new sdk.CreateScheduleCommand(input));
      } catch (raced) {
        if (!(raced instanceof sdk.ConflictException)) throw raced;
        await client.send(new sdk.UpdateScheduleCommand(input));
      }
    }
  }

  private async deleteIfThere(name: string): Promise<void> {
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.DeleteScheduleCommand({ Name: name, GroupName: this.config.group }));
    } catch (error) {
      if (!(error instanceof sdk.ResourceNotFoundException)) throw error;
    }
  }

  /** Runs a change; a failure is a 502 that names EventBridge Scheduler and what it said (never a credential). */
  private async unless(doing: string, id: string, change: () => Promise<unknown>): Promise<void> {
    try {
      await change();
    } catch (error) {
      const name = (error as Error)?.name ?? 'Error';
      const message = String((error as Error)?.message ?? error).slice(0, 300);
      throw new ZeroError('upstream_error', `${doing} schedule "${id}" with EventBridge Scheduler failed (${name}: ${message})`, { field: 'schedule_id' });
    }
  }

  private connect() {
    this.client ??= import('@aws-sdk/client-scheduler').then((sdk) => ({
      sdk,
      client: new sdk.SchedulerClient({
        region: this.config.region,
        ...(this.config.endpoint ? { endpoint: this.config.endpoint } : {}),
        ...(this.config.credentials ? { credentials: this.config.credentials } : {}),
      }),
    }));
    return this.client;
  }
}

/** The EventBridge names of a schedule: its id, and `<id>.w` for the day-of-week half of a cron that restricts both day fields. */
export const namesOf = (id: string) => [id, `${id}.w`];
