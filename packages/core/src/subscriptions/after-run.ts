import type { Runtime } from '../runtime';
import type { FinishedRun } from '../sessions/runner-deps';
import type { SessionMeta } from '../store/records';
import { scheduledRunEnded } from '../schedules/fire';
import { finishInvestigation, investigationWaits } from '../webhooks/finish';
import { publishEvent, type ZeroEvent } from './publish';
import { runEndedEvent, runWaitingEvent, sessionCreatedEvent } from './run-events';

/**
 * What follows a run's end, a run's wait and a session's creation:
 * subscribers are told (without making the caller wait: deliveries retry on
 * their own), a webhook investigation is finished and a scheduled run counted. Loaded with the first
 * run that ends, not at cold start. None of these throws.
 */
export async function runFinished(runtime: Runtime, finished: FinishedRun): Promise<void> {
  publish(runtime, runEndedEvent(finished));
  await Promise.all([finishInvestigation(runtime, finished), scheduledRunEnded(runtime, finished)]);
}

export async function runWaiting(runtime: Runtime, waiting: FinishedRun): Promise<void> {
  publish(runtime, runWaitingEvent(waiting));
  await investigationWaits(runtime, waiting);
}

export function sessionCreated(runtime: Runtime, session: SessionMeta): void {
  publish(runtime, sessionCreatedEvent(session));
}

function publish(runtime: Runtime, event: ZeroEvent | undefined): void {
  if (event) void publishEvent(runtime.subscriptions, event);
}
