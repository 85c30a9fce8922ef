import { runJobSchema, type RunJob } from './queue';
import { driveSession, type SessionRunnerDeps } from './drive';

/** One message of a queue batch, as SQS delivers it. */
export interface QueueRecord {
  messageId: string;
  body: string;
}

/**
 * Handles a batch of run jobs and names the ones that failed, so SQS
 * redelivers only those (partial batch response). A job is idempotent:
 * driving a session whose runs are finished does nothing.
 */
export async function handleRunJobs(
  deps: SessionRunnerDeps,
  records: readonly QueueRecord[],
  options: { deadline?: number; afterDrive?: (sessionId: string) => Promise<void> } = {},
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    records.map(async (record) => {
      let job: RunJob;
      try {
        job = runJobSchema.parse(JSON.parse(record.body));
      } catch (error) {
        console.error(JSON.stringify({ level: 'error', msg: 'unreadable run job', message_id: record.messageId, error: String(error) }));
        failures.push({ itemIdentifier: record.messageId });
        return;
      }
      try {
        await driveSession(deps, job.session_id, { deadline: options.deadline });
        // A redelivered job also finishes what a crashed one left (a webhook investigation's report and callback).
        await options.afterDrive?.(job.session_id);
      } catch (error) {
        console.error(JSON.stringify({ level: 'error', msg: 'run job failed', session_id: job.session_id, error: String(error) }));
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
