import type { StreamEvent } from '../wire/events';
import type { LogRecord } from './log-record';

type RunEnd = Extract<LogRecord, { kind: 'run_end' }>;
type RunWait = Extract<LogRecord, { kind: 'run_wait' }>;
export type DoneEvent = Extract<StreamEvent, { type: 'done' }>;

/**
 * The `done` event a run's end stands for. Built here only: the live stream (end-run), a replay of the log
 * (missing-events) and a cancelled wait say the same, `budget` and `reason` included when the end has them.
 */
export function doneOfEnd(end: Pick<RunEnd, 'run_id' | 'status' | 'steps' | 'usage' | 'reason' | 'budget'>): DoneEvent {
  return {
    type: 'done',
    run_id: end.run_id,
    status: end.status,
    steps: end.steps,
    usage: end.usage,
    ...(end.reason ? { reason: end.reason } : {}),
    ...(end.budget ? { budget: end.budget } : {}),
  };
}

/** The `done` event of a run that waits for decisions on its `pending` calls: it is not over, its stream ends here. */
export function doneOfWait(wait: Pick<RunWait, 'run_id' | 'steps' | 'usage' | 'pending'>): DoneEvent {
  return { type: 'done', run_id: wait.run_id, status: 'awaiting_approval', steps: wait.steps, usage: wait.usage, pending: wait.pending };
}
