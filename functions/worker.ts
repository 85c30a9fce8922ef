import { handleRunJobs } from '@zero/runtime/sessions';
import { prepareInvestigation, settleInvestigation } from '@zero/integrations/webhooks';
import { scheduleFireOf, type ScheduleFire } from '@zero/integrations/schedules/trigger';
import { outboxSweepTime } from '@zero/integrations/subscriptions/sweep-message';
import { errorText, log } from '@zero/agent/log/log';
import { dreamJobOf } from '@zero/runtime/memory/dream-job';
import { lambdaRuntime } from './runtime';

const runtime = lambdaRuntime();

interface SqsEvent {
  Records: { messageId: string; body: string }[];
}

/**
 * The worker behind the run queue: carries sessions on (webhook
 * investigations, runs handed over near a time limit) and fires schedules
 * when EventBridge Scheduler puts a `schedule_fire` job on the queue. Its own
 * time budget comes from the Lambda context; a run that nears it hands over
 * again. Failures are reported per message (partial batch response).
 */
export async function handler(event: SqsEvent, context?: { getRemainingTimeInMillis(): number }) {
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() : undefined;
  const records = event.Records ?? [];
  const fires = records.flatMap((record) => {
    const fire = scheduleFireOf(record.body);
    return fire ? [{ record, ...fire }] : [];
  });
  const failures = await fireSchedules(fires);
  // Outbox sweeps (delayed messages sent when an event delivery is written or to be retried): never fail, never redelivered.
  const sweeps = records.filter((record) => outboxSweepTime(record.body));
  if (sweeps.length) await (await import('@zero/integrations/subscriptions')).sweepOutbox(runtime, new Date());
  const dreams = records.filter((record) => dreamJobOf(record.body));
  const dreamFailures = await runDreams(dreams);
  const jobs = await handleRunJobs(
    runtime,
    records.filter((record) => !fires.some((fire) => fire.record === record) && !sweeps.includes(record) && !dreams.includes(record)),
    {
      deadline,
      // A webhook's job hydrates the hook's project from GitHub before the run, when the hook asks.
      beforeDrive: (job) => (job.reason === 'webhook' ? prepareInvestigation(runtime, job.session_id) : Promise.resolve()),
      afterDrive: (sessionId) => settleInvestigation(runtime, sessionId),
    },
  );
  return { batchItemFailures: [...failures, ...dreamFailures, ...jobs.batchItemFailures] };
}

/** Runs each dream job (the dreams' code is loaded with the first); a job whose dream record cannot be written is redelivered. */
async function runDreams(records: { messageId: string; body: string }[]): Promise<{ itemIdentifier: string }[]> {
  if (!records.length) return [];
  const { runDreamMessage } = await import('@zero/runtime/memory/dreams');
  const failed: { itemIdentifier: string }[] = [];
  await Promise.all(
    records.map(async (record) => {
      try {
        await runDreamMessage(runtime, record.body);
      } catch (error) {
        log.error('dream job failed', { message_id: record.messageId, error: errorText(error) });
        failed.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return failed;
}

/**
 * Fires each schedule for its scheduled time (croner is loaded with the first
 * firing); two firings for one time start one run. A firing that fails is redelivered.
 */
async function fireSchedules(fires: ({ record: { messageId: string } } & ScheduleFire)[]): Promise<{ itemIdentifier: string }[]> {
  if (!fires.length) return [];
  const { fireScheduleJob } = await import('@zero/integrations/schedules');
  const failed: { itemIdentifier: string }[] = [];
  for (const fire of fires) {
    const { record } = fire;
    if ('unreadable' in fire) {
      log.error('unreadable schedule firing', { message_id: record.messageId, error: fire.unreadable });
      failed.push({ itemIdentifier: record.messageId });
      continue;
    }
    const { id, at } = fire;
    try {
      // A run that could not be started is counted against the schedule; its time stays claimed, so it is not retried.
      await fireScheduleJob(runtime, id, at);
    } catch (error) {
      log.error('firing a schedule failed', { schedule_id: id, scheduled_at: at.toISOString(), error: errorText(error) });
      failed.push({ itemIdentifier: record.messageId });
    }
  }
  return failed;
}

