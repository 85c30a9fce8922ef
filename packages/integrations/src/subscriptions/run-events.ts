import type { EndingRun, FinishedRun } from '@zero/runtime/sessions/runner-deps';
import type { LogRecord, SessionMeta } from '@zero/runtime/store/records';
import type { ZeroEvent } from './publish';

/** `session.created`: the session's ids, never its title (a title is the first line of a message). */
export function sessionCreatedEvent(session: SessionMeta): ZeroEvent {
  return {
    type: 'session.created',
    key: session.session_id,
    data: { session_id: session.session_id, agent_id: session.agent_id, ...(session.project_id ? { project_id: session.project_id } : {}) },
  };
}

/** `run.completed` for a run that ended at `end_turn`, `run.failed` for any other end (its `status` says which: error, limit, cancelled). */
export function runEndedEvent(finished: FinishedRun): ZeroEvent | undefined {
  const end = finished.history.findLast((r): r is Extract<LogRecord, { kind: 'run_end' }> => r.kind === 'run_end' && r.run_id === finished.runId);
  return end && endingEvent({ session: finished.session, runId: finished.runId, record: end });
}

/** `run.awaiting_approval`: the calls waiting, by id; one message per set of calls asked. */
export function runWaitingEvent(waiting: FinishedRun): ZeroEvent | undefined {
  const wait = waiting.history.findLast((r): r is Extract<LogRecord, { kind: 'run_wait' }> => r.kind === 'run_wait' && r.run_id === waiting.runId);
  return wait && endingEvent({ session: waiting.session, runId: waiting.runId, record: wait });
}

/** The event that reports a run's ending (or wait), from the record that says so, stored or about to be. */
export function endingEvent({ session, runId, record }: EndingRun): ZeroEvent {
  const data = { session_id: session.session_id, run_id: runId, agent_id: session.agent_id, ...(session.project_id ? { project_id: session.project_id } : {}) };
  if (record.kind === 'run_wait') {
    const pending = [...record.pending].sort();
    return { type: 'run.awaiting_approval', key: `${runId}:${pending.join(',')}`, data: { ...data, status: 'awaiting_approval', pending } };
  }
  return {
    type: record.status === 'completed' ? 'run.completed' : 'run.failed',
    key: runId,
    data: { ...data, status: record.status, ...(record.error ? { reason: record.error.code } : record.reason ? { reason: record.reason } : {}) },
  };
}
