import type { EndingRun, FinishedRun } from '@zero/runtime/sessions/runner-deps';
import type { SessionMeta } from '@zero/runtime/store/records';
import { scheduledRunEnded } from '../schedules/fire';
import { finishInvestigation, investigationWaits } from '../webhooks/finish';
import { holdEvent, publishEvent, type ZeroEvent } from './publish';
import { endingEvent, runEndedEvent, runWaitingEvent, sessionCreatedEvent } from './run-events';

/**
 * What these need of the runtime: the outbox's, the webhooks' and the schedules' stores. The composition
 * root passes its whole `Runtime`; this module names none of it, so it does not import the root that loads it.
 */
export type AfterRunDeps = Parameters<typeof publishEvent>[0] &
  Parameters<typeof finishInvestigation>[0] &
  Parameters<typeof investigationWaits>[0] &
  Parameters<typeof scheduledRunEnded>[0];

/**
 * What follows a run's end, a run's wait and a session's creation (and what
 * comes just before a run's end or wait is stored: its reports held):
 * subscribers are told (the caller waits for the outbox records to be
 * written, not for the deliveries: they retry on their own, and a sweep
 * sends what a dead process left), a webhook investigation is finished and
 * a scheduled run counted. Loaded with the first run that ends, not at cold
 * start. None of these throws.
 */
export async function runFinished(runtime: AfterRunDeps, finished: FinishedRun): Promise<void> {
  await Promise.all([publish(runtime, runEndedEvent(finished)), finishInvestigation(runtime, finished), scheduledRunEnded(runtime, finished)]);
}

/** Before a run's ending (or wait) is stored: its subscribers' records are held, so a kill right after it is stored loses none. */
export async function runEnding(runtime: AfterRunDeps, ending: EndingRun): Promise<void> {
  await holdEvent(runtime, endingEvent(ending), { session_id: ending.session.session_id, run_id: ending.runId });
}

export async function runWaiting(runtime: AfterRunDeps, waiting: FinishedRun): Promise<void> {
  await Promise.all([publish(runtime, runWaitingEvent(waiting)), investigationWaits(runtime, waiting)]);
}

export async function sessionCreated(runtime: AfterRunDeps, session: SessionMeta): Promise<void> {
  await publish(runtime, sessionCreatedEvent(session));
}

async function publish(runtime: AfterRunDeps, event: ZeroEvent | undefined): Promise<void> {
  if (event) void (await publishEvent(runtime, event)).sent;
}
