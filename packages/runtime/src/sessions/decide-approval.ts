import { conflict } from '@zero/agent/errors';
import { POSITION_BLOCKS, PositionPool, fencedOut } from '../store/positions';
import type { RunLease } from '../store/lease-store';
import type { LogRecord } from '../store/records';
import type { Author, Strategy } from '@zero/agent/wire';
import { DEFAULT_APPROVAL_TTL_MS, approvalEvent, waitingRun, type WaitingRun } from './approvals';
import type { SessionRunnerDeps } from './runner-deps';
import { takeOver } from './take-over';

/** A decision on one call that waits. `reason`: Zero decided (an expiry or an interruption), not a member. */
export interface Decision {
  toolCallId: string;
  decision: 'allow' | 'deny';
  message?: string;
  by?: Author;
  reason?: 'expired' | 'interrupted';
  /** A client's result for a client tool call (with `allow`): what the model is sent. */
  result?: { content: string; is_error?: boolean; truncated?: boolean };
}

type ApprovalRecord = Extract<LogRecord, { kind: 'approval' }>;

export interface Decided {
  /** The decisions as recorded (who, when). */
  recorded: ApprovalRecord[];
  /** The calls still waiting after them; none: the run was sent on. */
  pending: string[];
}

/** How long a decision waits for the session's lease (another decision being recorded) before it gives up with a 409. */
const LEASE_WAIT_MS = 5_000;

/**
 * Records decisions on the calls a waiting run asked about. `choose` picks
 * them from the run as the log shows it (it may throw, e.g. a 409 for a call
 * that is not pending); it is asked again under the session's lease, so two
 * members deciding the same call at once cannot both win: the lease is one
 * conditional write, and the second finds the call decided. Each decision is
 * an `approval` record and event. When the last pending call is decided the
 * session goes to the queue, which resumes the run (running allowed calls
 * once, answering denied ones with an error); until the run is resumed its
 * unfinished state in the log lets any read of the session resume it.
 */
export async function decideApprovals(
  deps: SessionRunnerDeps,
  sessionId: string,
  choose: (waiting: WaitingRun | undefined) => Decision[],
  /** Runs under the lease once the decisions are recorded, before the run is sent on (e.g. a remembered override). */
  afterRecorded?: (recorded: readonly ApprovalRecord[]) => Promise<void>,
): Promise<Decided> {
  for (;;) {
    const seen = waitingRun(await deps.sessions.readLogTail(sessionId, 200));
    if (choose(seen).length === 0) return { recorded: [], pending: seen?.pending.map((p) => p.tool_use_id) ?? [] };
    const decided = await underWaitLease(deps, sessionId, seen!.runId, async ({ lease, history, positions }) => {
      const waiting = waitingRun(history);
      const decisions = choose(waiting);
      const runId = waiting?.runId ?? seen!.runId;
      const pool = positions(runId);
      const at = new Date().toISOString();
      const recorded: ApprovalRecord[] = [];
      for (const d of decisions) {
        // A delegated run's call is decided under that run's id: it reads its decision when it resumes.
        const asked = waiting?.pending.find((p) => p.tool_use_id === d.toolCallId);
        const record = {
          kind: 'approval' as const,
          run_id: asked?.run_id ?? runId,
          ...(asked?.parent_run_id ? { parent_run_id: asked.parent_run_id } : {}),
          tool_use_id: d.toolCallId,
          decision: d.decision,
          ...(d.message ? { message: d.message } : {}),
          ...(d.by ? { by: d.by } : {}),
          ...(d.reason ? { reason: d.reason } : {}),
          ...(d.result ? { result: d.result } : {}),
        };
        recorded.push((await deps.sessions.append(sessionId, await pool.next(), record, at).catch(fencedOut)) as ApprovalRecord);
      }
      if (recorded.length) {
        const seq = lease.reserved.event.shift()!;
        await deps.sessions.putEvents(sessionId, { seq, run_id: runId, events: recorded.map(approvalEvent) }).catch(fencedOut);
      }
      if (recorded.length && afterRecorded) await afterRecorded(recorded);
      const decidedIds = new Set(recorded.map((r) => r.tool_use_id));
      return { recorded, pending: (waiting?.pending ?? []).map((p) => p.tool_use_id).filter((id) => !decidedIds.has(id)) };
    });
    if (decided.recorded.length && decided.pending.length === 0) await deps.queue.send({ session_id: sessionId, reason: 'approvals decided' });
    return decided;
  }
}

/** What work under a waiting session's lease is given: the lease (one event position reserved), the whole log, and the log's positions for a run. */
export interface WaitLease {
  lease: RunLease;
  history: LogRecord[];
  positions: (runId: string) => PositionPool;
}

/**
 * Runs `work` under the session's lease, taken for a run that waits for
 * people (`runId`): the lease is one conditional write, so two members
 * changing the waiting run at once are serialised, and the second finds
 * the first's records in the log `work` is given (read under the lease,
 * after a takeover restored what a dead holder left). Waits up to 5 s for
 * a lease another change holds, then gives up with a 409.
 */
export async function underWaitLease<T>(deps: SessionRunnerDeps, sessionId: string, runId: string, work: (held: WaitLease) => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + LEASE_WAIT_MS;
  for (;;) {
    const acquired = await deps.leases.acquire(sessionId, deps.instanceId, runId, { log: 0, event: 1 });
    if (!acquired) {
      if (Date.now() > giveUpAt) throw conflict('the session is busy recording another decision; try again');
      await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    const { lease, takeover } = acquired;
    try {
      const history = await deps.sessions.readLog(sessionId);
      const last = history.reduce((max, r) => Math.max(max, r.seq), 0);
      if (takeover) await takeOver(deps, sessionId, lease, history, last);
      await deps.leases.raise(lease, 'log', last);
      return await work({ lease, history, positions: (run) => new PositionPool(deps.leases, lease, 'log', POSITION_BLOCKS.log, run, () => undefined) });
    } finally {
      // Another process's cached log lacks these records: it reads the log again (a new token).
      deps.runs.forgetHistory(sessionId);
      await deps.leases.release(lease).catch(() => undefined);
    }
  }
}

/**
 * Denies the waiting calls that waited longer than the deployment's approval
 * time (`ZERO_APPROVAL_TTL_MS`, 24 h by default), with a note the model sees;
 * then the run goes on. No timer: checked when the session is read (with the
 * log the reader has, so a session without overdue calls costs nothing more)
 * or a message arrives. True when some call expired.
 */
export async function expireApprovals(deps: SessionRunnerDeps, sessionId: string, history?: readonly LogRecord[]): Promise<boolean> {
  const ttlMs = deps.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  const overdue = (waiting: WaitingRun | undefined) => waiting?.pending.filter((p) => Date.now() - Date.parse(p.at) >= ttlMs) ?? [];
  if (history && overdue(waitingRun(history)).length === 0) return false;
  const message = `nobody decided within ${formatDuration(ttlMs)}, so the call was not run; ask again if it is still needed`;
  const { recorded } = await decideApprovals(deps, sessionId, (waiting) =>
    overdue(waiting).map((p) => ({ toolCallId: p.tool_use_id, decision: 'deny' as const, reason: 'expired' as const, message })),
  );
  return recorded.length > 0;
}

/**
 * A message arrived while a run waits for a person (it waits in the inbox
 * behind that run): overdue calls expire, and with the `interrupt` strategy
 * every waiting call is denied with a note, so the run goes on and the
 * message is answered after it.
 */
export async function messageWhileWaiting(deps: SessionRunnerDeps, sessionId: string, strategy: Strategy): Promise<void> {
  if (strategy !== 'interrupt') {
    await expireApprovals(deps, sessionId);
    return;
  }
  const message = 'a new message interrupted the run before anyone decided, so the call was not run';
  await decideApprovals(deps, sessionId, (waiting) =>
    (waiting?.pending ?? []).map((p) => ({ toolCallId: p.tool_use_id, decision: 'deny' as const, reason: 'interrupted' as const, message })),
  );
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
