import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Cron } from 'croner';

/** A schedule as EventBridge Scheduler keeps it (the fields Zero sends). */
export interface FakeSchedule {
  Name: string;
  GroupName: string;
  Description?: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  State: 'ENABLED' | 'DISABLED';
  FlexibleTimeWindow: { Mode: string };
  Target: { Arn: string; RoleArn: string; Input?: string; RetryPolicy?: unknown };
}

/**
 * EventBridge Scheduler's REST API on loopback, as much as Zero uses: create
 * (`POST /schedules/{Name}`), update (`PUT`), delete (`DELETE`, `groupName`
 * in the query) and get, with AWS's error shapes (`x-amzn-errortype`), and
 * the checks AWS makes on what Zero sends: a name of at most 64 characters, a
 * six-field `cron()` with `?` in exactly one day field, a known time zone, a
 * target with a role. `fire` is what the service does at a scheduled time:
 * the target's input with its context attributes filled in, as the run queue
 * would receive it; `nextTimes` reads the expression in its time zone.
 */
export class FakeScheduler {
  readonly schedules = new Map<string, FakeSchedule>();
  readonly requests: { method: string; name: string }[] = [];
  /** The next request answers with this error instead (a test of a failure on AWS's side). */
  failNext?: { type: string; status: number; message: string };
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The schedules of a group, by name. */
  inGroup(group: string): Map<string, FakeSchedule> {
    return new Map([...this.schedules.values()].filter((s) => s.GroupName === group).map((s) => [s.Name, s]));
  }

  /** The SQS message body the schedule's target gets for the firing at `at`, as EventBridge Scheduler sends it. */
  fire(group: string, name: string, at: Date): string {
    const schedule = this.schedules.get(`${group}/${name}`);
    if (!schedule) throw new Error(`no schedule ${group}/${name}`);
    if (schedule.State !== 'ENABLED') throw new Error(`${name} is disabled: it does not fire`);
    return (schedule.Target.Input ?? '')
      .replaceAll('<aws.scheduler.scheduled-time>', at.toISOString().replace(/\.\d{3}Z$/, 'Z'))
      .replaceAll('<aws.scheduler.schedule-arn>', `arn:aws:scheduler:us-east-1:123456789012:schedule/${group}/${name}`)
      .replaceAll('<aws.scheduler.attempt-number>', '1');
  }

  /** The schedule's next times after `from`, reading its `cron()` in its time zone (without the year; `?` as any day). */
  nextTimes(group: string, name: string, from: Date, count = 1): Date[] {
    const schedule = this.schedules.get(`${group}/${name}`)!;
    const fields = /^cron\((.*)\)$/.exec(schedule.ScheduleExpression)![1]!.split(' ');
    const pattern = fields.slice(0, 5).join(' ').replaceAll('?', '*');
    return new Cron(pattern, { timezone: schedule.ScheduleExpressionTimezone ?? 'UTC', paused: true, mode: '5-part' }).nextRuns(count, from);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://scheduler');
    const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const error = (status: number, type: string, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
      res.end(JSON.stringify({ Message: message }));
    };
    if (!match) return error(404, 'UnknownOperationException', `no route ${req.method} ${url.pathname}`);
    const name = decodeURIComponent(match[1]!);
    this.requests.push({ method: req.method ?? '', name });
    if (this.failNext) {
      const failure = this.failNext;
      this.failNext = undefined;
      return error(failure.status, failure.type, failure.message);
    }
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<FakeSchedule>) : {};
    const group = req.method === 'POST' || req.method === 'PUT' ? (body.GroupName ?? 'default') : (url.searchParams.get('groupName') ?? 'default');
    const key = `${group}/${name}`;
    const ok = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const arn = `arn:aws:scheduler:us-east-1:123456789012:schedule/${group}/${name}`;
    switch (req.method) {
      case 'POST':
      case 'PUT': {
        const invalid = validate(name, body);
        if (invalid) return error(400, 'ValidationException', invalid);
        if (req.method === 'POST' && this.schedules.has(key)) return error(409, 'ConflictException', `Schedule ${name} already exists.`);
        if (req.method === 'PUT' && !this.schedules.has(key)) return error(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
        this.schedules.set(key, { ...(body as FakeSchedule), Name: name, GroupName: group, State: body.State ?? 'ENABLED' });
        return ok({ ScheduleArn: arn });
      }
      case 'DELETE':
        if (!this.schedules.delete(key)) return error(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
        return ok({});
      case 'GET': {
        const schedule = this.schedules.get(key);
        return schedule ? ok({ ...schedule, Arn: arn }) : error(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
      }
      default:
        return error(405, 'UnknownOperationException', `no route ${req.method} ${url.pathname}`);
    }
  }
}

/** What AWS refuses with a ValidationException, of what Zero could get wrong. */
function validate(name: string, body: Partial<FakeSchedule>): string | undefined {
  if (!/^[0-9a-zA-Z-_.]{1,64}$/.test(name)) return `Name ${name} must match [0-9a-zA-Z-_.]{1,64}`;
  const cron = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/.exec(body.ScheduleExpression ?? '');
  if (!cron) return `Invalid Schedule Expression ${body.ScheduleExpression}.`;
  if ((cron[3] === '?') === (cron[5] === '?')) return `Invalid Schedule Expression ${body.ScheduleExpression}: one of day-of-month and day-of-week must be '?'.`;
  if ((body.ScheduleExpression ?? '').length > 256) return 'ScheduleExpression is longer than 256.';
  try {
    new Intl.DateTimeFormat('en', { timeZone: body.ScheduleExpressionTimezone ?? 'UTC' });
  } catch {
    return `Invalid ScheduleExpressionTimezone ${body.ScheduleExpressionTimezone}.`;
  }
  if (!body.FlexibleTimeWindow?.Mode) return 'FlexibleTimeWindow is required.';
  if (!body.Target?.Arn || !body.Target.RoleArn) return 'Target.Arn and Target.RoleArn are required.';
  return undefined;
}
