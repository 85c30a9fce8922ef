import { handleRunJobs } from '@zero/core/sessions';
import { prepareInvestigation, settleInvestigation } from '@zero/core/webhooks';
import { SCHEDULE_TICK_LOOKBACK_MS, scheduleTickTime } from '@zero/core/schedules/tick';
import { outboxSweepTime } from '@zero/core/subscriptions/sweep-message';
import { errorText, log } from '@zero/core';
import { lambdaRuntime } from './runtime';

const runtime = lambdaRuntime();

interface SqsEvent {
  Records: { messageId: string; body: string }[];
}

/**
 * The worker behind the run queue: carries sessions on (webhook
 * investigations, runs handed over near a time limit) and fires the
 * schedules due at each minute's tick from an EventBridge rule. Its own
 * time budget comes from the Lambda context; a run that nears it hands over
 * again. Failures are reported per message (partial batch response).
 */
export async function handler(event: SqsEvent, context?: { getRemainingTimeInMillis(): number }) {
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() : undefined;
  const records = event.Records ?? [];
  const ticks = records.flatMap((record) => {
    const at = scheduleTickTime(record.body);
    return at ? [{ record, at }] : [];
  });
  const failures = await fireTicks(ticks);
  // Outbox sweeps (delayed messages sent when an event delivery is written or to be retried): never fail, never redelivered.
  const sweeps = records.filter((record) => outboxSweepTime(record.body));
  if (sweeps.length) await (await import('@zero/core/subscriptions')).sweepOutbox(runtime, new Date());
  const jobs = await handleRunJobs(
    runtime,
    records.filter((record) => !ticks.some((tick) => tick.record === record) && !sweeps.includes(record)),
    {
      deadline,
      // A webhook's job hydrates the hook's project from GitHub before the run, when the hook asks.
      beforeDrive: (job) => (job.reason === 'webhook' ? prepareInvestigation(runtime, job.session_id) : Promise.resolve()),
      afterDrive: (sessionId) => settleInvestigation(runtime, sessionId),
    },
  );
  return { batchItemFailures: [...failures, ...jobs.batchItemFailures] };
}

/** Fires the schedules due before each tick (croner is loaded with the first tick); a tick that fails is redelivered. */
async function fireTicks(ticks: { record: { messageId: string }; at: Date }[]): Promise<{ itemIdentifier: string }[]> {
  if (!ticks.length) return [];
  const { fireDueSchedules } = await import('@zero/core/schedules');
  const failed: { itemIdentifier: string }[] = [];
  for (const { record, at } of ticks) {
    try {
      await fireDueSchedules(runtime, new Date(at.getTime() - SCHEDULE_TICK_LOOKBACK_MS), at);
    } catch (error) {
      log.error('firing the due schedules failed', { tick: at.toISOString(), error: errorText(error) });
      failed.push({ itemIdentifier: record.messageId });
    }
  }
  return failed;
}
