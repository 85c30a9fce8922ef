import { STOP_REASONS } from '@zero/agent/loop/stop-reasons';
import { fencedOut } from '../store/positions';
import type { LogRecord } from '../store/records';
import { waitingRun } from './approvals';
import { underWaitLease } from './decide-approval';
import { resumeState } from '@zero/agent/loop/resume-state';
import type { SessionRunnerDeps } from './runner-deps';
import { doneOfEnd } from '@zero/agent/records/done';

/**
 * Cancels the run that waits for people, if the session has one: under the
 * session's lease, it records the run's `run_end` (status `cancelled`, its
 * steps and usage so far) and its `done` event, so its calls that waited no
 * longer take decisions (a 409) and the messages that waited behind it are
 * answered (the session goes to the queue). Subscribers and schedules learn
 * of the end as of any other. The run id it cancelled, or undefined when no
 * run waits. Throws a 409 when the lease stays busy (another decision).
 */
export async function cancelWaitingRun(deps: SessionRunnerDeps, sessionId: string): Promise<string | undefined> {
  const seen = waitingRun(await deps.sessions.readLogTail(sessionId, 200));
  if (!seen) return undefined;
  const ended = await underWaitLease(deps, sessionId, seen.runId, async ({ lease, history, positions }) => {
    const waiting = waitingRun(history);
    if (!waiting) return undefined;
    const { steps, usage } = resumeState(history, waiting.runId);
    const reason = STOP_REASONS.cancelled;
    const record = { kind: 'run_end' as const, run_id: waiting.runId, status: 'cancelled' as const, steps, usage, reason };
    const session = await deps.sessions.requireSession(sessionId);
    // As any run's ending: what reports it is written first (see RunEnding.announce).
    await deps.onRunEnding?.({ session, runId: waiting.runId, record });
    const stored = await deps.sessions.append(sessionId, await positions(waiting.runId).next(), record).catch(fencedOut);
    const seq = lease.reserved.event.shift()!;
    await deps.sessions.putEvents(sessionId, { seq, run_id: waiting.runId, events: [doneOfEnd(record)] }).catch(fencedOut);
    await deps.sessions.updateSession(sessionId, { awaiting_approval_since: null }).catch(() => undefined);
    const finished: LogRecord[] = [...history, stored];
    // Told while the lease is held, as a run that ends in a drive.
    await deps.onRunFinished?.({ session, runId: waiting.runId, history: finished });
    return waiting.runId;
  });
  if (ended && (await deps.sessions.peekInbox(sessionId, 1)).length) await deps.queue.send({ session_id: sessionId, reason: 'answer waiting messages' });
  return ended;
}
