import type { FinishedRun } from '../sessions/runner-deps';
import type { LogRecord, SessionMeta } from '../store/records';
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
  if (!end) return undefined;
  return {
    type: end.status === 'completed' ? 'run.completed' : 'run.failed',
    key: finished.runId,
    data: { ...ids(finished), status: end.status, ...(end.error ? { reason: end.error.code } : end.reason ? { reason: end.reason } : {}) },
  };
}

/** `run.awaiting_approval`: the calls waiting, by id; one message per set of calls asked. */
export function runWaitingEvent(waiting: FinishedRun): ZeroEvent | undefined {
  const wait = waiting.history.findLast((r): r is Extract<LogRecord, { kind: 'run_wait' }> => r.kind === 'run_wait' && r.run_id === waiting.runId);
  if (!wait) return undefined;
  const pending = [...wait.pending].sort();
  return { type: 'run.awaiting_approval', key: `${waiting.runId}:${pending.join(',')}`, data: { ...ids(waiting), status: 'awaiting_approval', pending } };
}

function ids(run: FinishedRun) {
  return { session_id: run.session.session_id, run_id: run.runId, agent_id: run.session.agent_id, ...(run.session.project_id ? { project_id: run.session.project_id } : {}) };
}
