import { runJobSchema, type RunJob } from './queue';
import { driveSession, type SessionRunnerDeps } from './drive';
import { errorText, log } from '@zero/agent/log/log';

/** One message of a queue batch, as SQS delivers it. */
export interface QueueRecord {
  messageId: string;
  body: string;
}

/** What follows a drive, and the time it may take. */
export interface RunJobOptions {
  /** Epoch ms by which this process must be done; a run that nears it hands over again. */
  deadline?: number;
  /** Called before each drive: readies what the run needs (a webhook investigation's hydrated project). */
  beforeDrive?: (job: RunJob) => Promise<void>;
  /** Called after each drive: a redelivered job also finishes what a crashed one left (a webhook investigation's report and callback). */
  afterDrive?: (sessionId: string) => Promise<void>;
}

/**
 * The one handler of a run job, for the in-process queue and SQS alike:
 * carries the session on, then whatever follows a drive. Idempotent: driving
 * a session whose runs are finished does nothing.
 */
export async function runJob(deps: SessionRunnerDeps, job: RunJob, options: RunJobOptions = {}): Promise<void> {
  await options.beforeDrive?.(job);
  await driveSession(deps, job.session_id, { deadline: options.deadline });
  await options.afterDrive?.(job.session_id);
}

/**
 * Handles a batch of run jobs and names the ones that failed, so SQS
 * redelivers only those (partial batch response). A job is idempotent:
 * driving a session whose runs are finished does nothing.
 */
export async function handleRunJobs(
  deps: SessionRunnerDeps,
  records: readonly QueueRecord[],
  options: RunJobOptions = {},
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    records.map(async (record) => {
      let job: RunJob;
      try {
        job = runJobSchema.parse(JSON.parse(record.body));
      } catch (error) {
        log.error('unreadable run job', { message_id: record.messageId, error: errorText(error) });
        failures.push({ itemIdentifier: record.messageId });
        return;
      }
      try {
        await runJob(deps, job, options);
      } catch (error) {
        log.error('run job failed', { session_id: job.session_id, error: errorText(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
