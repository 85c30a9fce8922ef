import { ZeroError } from '../errors';
import type { BudgetScope, RunStatus, StreamEvent, Usage } from '../wire';
import { ModelError } from '../model/provider';
import { LeaseLostError } from './lease-lost';
import type { NewLogRecord } from '../records/log-record';
import { redact } from '../log/redact';
import { log } from '../log/log';
import { doneOfEnd, doneOfWait } from '../records/done';

export interface RunOutcome {
  /** `handover`: not over; it continues elsewhere from its log. `awaiting_approval`: not over; it waits for decisions on `pending`. */
  status: RunStatus | 'handover' | 'awaiting_approval';
  /** The calls that wait for a person's decision (`awaiting_approval`). */
  pending?: string[];
  steps: number;
  usage: Usage;
  reason?: string;
  error?: { code: string; message: string };
  /** With `budget_reached`: the budget that is spent. */
  budget?: BudgetScope;
}

/** What ending a run needs: where its records and events go. */
export interface RunEnding {
  sessionId: string;
  runId: string;
  append: (record: NewLogRecord) => Promise<void>;
  /** Writes records together, in one round trip; needed with `unwritten`. */
  appendTogether?: (records: readonly NewLogRecord[]) => Promise<void>;
  /**
   * With a `completed` outcome: the run's last record (its answer), not yet written. It is written with the
   * `run_end`, in one round trip; if that write fails, the run fails as if the answer's write had.
   */
  unwritten?: NewLogRecord;
  emit: (event: StreamEvent) => void;
  secrets?: readonly string[];
  /** False when the run's user message never reached the log (it waits in the inbox): nothing is recorded then. */
  recorded?: boolean;
  /**
   * Called once the ending is recorded, before the last event, with whether the run waits for people; so what
   * a reader fetches on `done` (the sessions list) already shows it. Must not throw.
   */
  settle?: (waits: boolean) => Promise<void>;
  /**
   * Called with the run's `run_end` or `run_wait` right before it is appended, so what reports that ending
   * (a subscriber's outbox record) is as durable as the ending: a process killed just after the record
   * is stored loses no report. Must not throw.
   */
  announce?: (record: Extract<NewLogRecord, { kind: 'run_end' | 'run_wait' }>) => Promise<void>;
}

/** The code of a failure caused by losing the session's lease to another instance. */
export const LEASE_LOST = 'lease_lost';

/** Why a run's client is told to follow the session's events when its instance lost the lease. */
export const LEASE_LOST_REASON = 'lease lost: another instance carries the run on; follow the session\'s events from here';

/**
 * Ends a run; the one place that does, for every way a run ends. Reports an
 * error outcome, records `run_end` (or `run_handover`, or `run_wait` when it
 * waits for approvals) when the store takes it, and emits the invocation's last
 * event: `done` (status `awaiting_approval` for a wait), or `handover` when the run
 * continues elsewhere (near its time limit, or because another instance took
 * its lease: that instance carries it on and writes its real ending, so this
 * one invents none). Must not throw.
 */
export async function endRun(ending: RunEnding, outcome: RunOutcome): Promise<RunOutcome> {
  const { runId, emit } = ending;
  const leaseLost = (): RunOutcome => {
    emit({ type: 'handover', session_id: ending.sessionId, run_id: runId, reason: LEASE_LOST_REASON });
    return { ...outcome, status: 'handover', reason: LEASE_LOST_REASON, error: { code: LEASE_LOST, message: LEASE_LOST_REASON } };
  };
  if (outcome.error?.code === LEASE_LOST) return leaseLost();
  if (outcome.error) emit({ type: 'error', ...outcome.error, run_id: runId });

  // A run that is not over (it continues elsewhere, or waits for people): its record, then its last event here.
  // If the store refuses the record, the run ends with an error after all.
  const pause = async (record: NewLogRecord, event: StreamEvent): Promise<RunOutcome | undefined> => {
    try {
      if (record.kind === 'run_wait') await ending.announce?.(record);
      await ending.append(record);
      await ending.settle?.(record.kind === 'run_wait');
      emit(event);
      return outcome;
    } catch (error) {
      const described = describeFailure(error, ending.secrets ?? []);
      if (described.code === LEASE_LOST) return leaseLost();
      emit({ type: 'error', ...described, run_id: runId });
      outcome = { status: 'error', steps: outcome.steps, usage: outcome.usage, reason: described.message, error: described };
      return undefined;
    }
  };
  if (outcome.status === 'handover') {
    const reason = outcome.reason ?? 'handover';
    const paused = await pause(
      { kind: 'run_handover', run_id: runId, steps: outcome.steps, usage: outcome.usage, reason },
      { type: 'handover', session_id: ending.sessionId, run_id: runId, reason },
    );
    if (paused) return paused;
  } else if (outcome.status === 'awaiting_approval') {
    const pending = outcome.pending ?? [];
    const paused = await pause(
      { kind: 'run_wait', run_id: runId, steps: outcome.steps, usage: outcome.usage, pending },
      doneOfWait({ run_id: runId, steps: outcome.steps, usage: outcome.usage, pending }),
    );
    if (paused) return paused;
  }

  const status = outcome.status as RunStatus;
  const { pending: _pending, ...ended } = outcome;
  if (ending.recorded !== false) {
    try {
      const record = { kind: 'run_end' as const, run_id: runId, ...ended, status };
      await ending.announce?.(record);
      await (ending.unwritten ? ending.appendTogether!([ending.unwritten, record]) : ending.append(record));
      await ending.settle?.(false);
    } catch (error) {
      const described = describeFailure(error, ending.secrets ?? []);
      if (described.code === LEASE_LOST) return leaseLost();
      // The answer was not recorded either: the run ends with the error, as when its step's record fails alone.
      if (ending.unwritten) return endRun({ ...ending, unwritten: undefined }, { status: 'error', steps: outcome.steps, usage: outcome.usage, reason: described.message, error: described });
      emit({ type: 'error', code: described.code, message: `the run's end could not be recorded: ${described.message}`, run_id: runId });
    }
  }
  emit(doneOfEnd({ run_id: runId, status, steps: ended.steps, usage: ended.usage, reason: ended.reason, budget: ended.budget }));
  return outcome;
}

/** An error as the run's client may see it: a stable code and a message without secrets. */
export function describeFailure(error: unknown, secrets: readonly string[]): { code: string; message: string } {
  if (ZeroError.isInstance(error)) return { code: error.code, message: redact(error.message, secrets) };
  if (ModelError.isInstance(error)) {
    const status = error.status ? ` (HTTP ${error.status})` : '';
    return { code: 'model_error', message: redact(`the model API failed${status}: ${error.message}`, secrets) };
  }
  // By name, not class: the lease store's error must be recognised without the run importing the store.
  if (LeaseLostError.isInstance(error)) return { code: LEASE_LOST, message: LEASE_LOST_REASON };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message: redact(message, secrets) };
}

/** The run's end as one log line: what happened and what it cost, never what was said. */
export function logRunEnd(run: { sessionId: string; runId: string; userId: string; agentId: string }, outcome: RunOutcome): void {
  const { usage } = outcome;
  log.info('run end', {
    session_id: run.sessionId,
    run_id: run.runId,
    user_id: run.userId,
    agent_id: run.agentId,
    status: outcome.status,
    steps: outcome.steps,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cost_usd: usage.cost_usd,
    error_code: outcome.error?.code,
    budget: outcome.budget,
  });
}
