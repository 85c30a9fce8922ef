import { STOP_REASONS } from '@zero/agent/loop/stop-reasons';
import { LeaseLostError, type StopRequest } from '../store/lease-store';
import type { LogRecord } from '../store/records';
import { LEASE_LOST } from '@zero/agent/loop/end-run';
import { lastRunIfOpen, unfinishedRun } from './resume';
import { runMessage, type RunSpec } from './run-message';
import type { ClaimedSession, DriveOptions, SessionRunnerDeps } from './runner-deps';
import { takeOver } from './take-over';
import { messageWhileWaiting } from './decide-approval';
import { POSITION_BLOCKS } from '../store/positions';
import { activeBranch } from '../store/branches';

export type { ClaimedSession, DriveOptions, FinishedRun, NewMessage, SessionRunnerDeps } from './runner-deps';

/**
 * Carries a session on for as long as this process holds its lease: first
 * the run the log shows unfinished (resumed from its last complete step),
 * then the message that claimed the session (`options.claimed`), then the
 * waiting messages, one run at a time, in arrival order. Returns
 * when there is nothing left, another process holds the lease (it will do
 * what waits), or a run handed over near the deadline (the queue carries it
 * on). Never throws for a run's failure; those are recorded in the log.
 */
export async function driveSession(deps: SessionRunnerDeps, sessionId: string, options: DriveOptions = {}): Promise<void> {
  const deadline = options.deadline ?? (deps.runBudgetMs ? Date.now() + deps.runBudgetMs : undefined);
  let claimed = options.claimed;
  // The last drain left no run unfinished in the log: only the inbox can hold work now.
  let settled = false;
  let drains = 0;
  for (;;) {
    let acquired = claimed;
    claimed = undefined;
    if (!acquired) {
      const [next] = await deps.sessions.peekInbox(sessionId, 1);
      const open = next || settled ? undefined : await lastRunIfOpen(deps, sessionId);
      // Nothing to run: only a holder that died unreleased (its takeover restores what it left) gives this drive work.
      const abandoned = next || open || drains > 0 ? undefined : await deps.leases.inspect(sessionId).then((l) => (l?.abandoned ? l : undefined));
      if (!next && !open && !abandoned) return;
      acquired = await deps.leases.acquire(sessionId, deps.instanceId, next?.run_id ?? open ?? abandoned?.run_id ?? 'takeover', POSITION_BLOCKS);
      if (!acquired) return;
    }
    let drained: Drained;
    drains++;
    try {
      drained = await drain(deps, sessionId, acquired, deadline);
    } finally {
      await deps.leases.release(acquired.lease).catch(() => undefined);
    }
    // A run waits for a person: nothing more runs here until a decision sends the session to the queue. A message
    // that came meanwhile may end the wait (its strategy, or approvals that expired); the lease is free for that now.
    if (drained.waiting) {
      if (acquired.message) await messageWhileWaiting(deps, sessionId, acquired.strategy ?? 'enqueue');
      return;
    }
    if (drained.handedOver) {
      await deps.queue.send({ session_id: sessionId, reason: 'handover near the time limit' });
      return;
    }
    // A message that came to the busy session after the drain's last look at the inbox is answered by the process
    // that accepted it, once the lease is free (ensureAnswered): a drive for a message of its own ends here.
    if (acquired === options.claimed) return;
    // Other drives look again: that message may have been left by a process that died.
    settled = drained.settled;
  }
}

interface Drained {
  /** A run handed over (the caller sends the session to the queue). */
  handedOver: boolean;
  /** The log shows no unfinished run. */
  settled: boolean;
  /** A run waits for approvals: the session's messages wait behind it. */
  waiting?: boolean;
}

async function drain(deps: SessionRunnerDeps, sessionId: string, claim: ClaimedSession, deadline?: number): Promise<Drained> {
  const { lease, takeover } = claim;
  let session = claim.session ?? (await deps.sessions.requireSession(sessionId));
  const history = await knownHistory(deps, sessionId, claim);
  const lastLog = lastSeq(history);
  // Every event position is handed out by the lease, so its counter is never behind the event log;
  // the log's tail is read only to seal what a dead holder reserved.
  if (takeover) await takeOver(deps, sessionId, lease, history, lastLog);
  await deps.leases.raise(lease, 'log', lastLog);

  let current: { runId: string; controller: AbortController } | undefined;
  const applyStop = (stop: StopRequest | undefined) => {
    if (stop && current && stop.run_id === current.runId) current.controller.abort(STOP_REASONS[stop.reason]);
  };
  let lost = false;
  const heartbeat = setInterval(() => {
    deps.leases
      .heartbeat(lease, current?.runId)
      .then(applyStop)
      .catch((error) => {
        if (LeaseLostError.isInstance(error)) {
          lost = true;
          current?.controller.abort('the run lost its lease to another instance');
        }
      });
  }, Math.max(1000, deps.leases.ttlMs / 3));

  let runs = 0;
  const run = async (spec: RunSpec) => {
    const controller = new AbortController();
    current = { runId: spec.runId, controller };
    // The meta item as the drain began serves its first run; a later one reads it again, so what an owner
    // changed meanwhile (permission overrides, above all) applies from the next run, as documented.
    if (runs++ > 0) session = await deps.sessions.requireSession(sessionId);
    const result = await runMessage(deps, session, lease, spec, history, controller, applyStop, deadline);
    current = undefined;
    session = result.session;
    if (result.outcome.error?.code === LEASE_LOST) {
      // Another instance holds the session now and carries this run on.
      lost = true;
      return undefined;
    }
    // An ending the store refused leaves the run unfinished in the log: stop here rather than resume it at once.
    const last = history.findLast((r) => r.run_id === spec.runId);
    if (last?.kind !== 'run_end' && last?.kind !== 'run_handover' && last?.kind !== 'run_wait') throw new Error(`the end of run ${spec.runId} could not be recorded`);
    if (result.outcome.status === 'awaiting_approval') await deps.onRunWaiting?.({ session, runId: spec.runId, history });
    else if (result.outcome.status !== 'handover') await deps.onRunFinished?.({ session, runId: spec.runId, history });
    return result.outcome;
  };

  try {
    const open = unfinishedRun(history);
    let first = claim.message;
    if (first && open) {
      // The unfinished run goes first; meanwhile the message waits in the inbox, safe whatever becomes of that run.
      await deps.sessions.enqueue(sessionId, first);
      claim.onDurable?.('inbox');
      first = undefined;
    }
    const waiting = { handedOver: false, settled: false, waiting: true };
    if (open?.waiting) return waiting;
    if (open && !lost) {
      const outcome = await run({ runId: open.runId, record: open.message });
      if (outcome?.status === 'handover') return { handedOver: true, settled: false };
      if (outcome?.status === 'awaiting_approval') return waiting;
    }
    if (first && !lost) {
      const outcome = await run({ runId: first.run_id, message: first, onRecorded: () => claim.onDurable?.('log'), newSession: claim.created });
      if (outcome?.status === 'handover') return { handedOver: true, settled: false };
      if (outcome?.status === 'awaiting_approval') return waiting;
    }
    while (!lost) {
      const [message] = await deps.sessions.peekInbox(sessionId, 1);
      if (!message) break;
      // Moved into the log before a crash, but not yet removed from the inbox.
      if (history.some((r) => r.kind === 'user_message' && r.run_id === message.run_id)) {
        await deps.sessions.removeFromInbox(sessionId, message.message_id);
        continue;
      }
      const outcome = await run({ runId: message.run_id, message });
      if (outcome?.status === 'handover') return { handedOver: true, settled: false };
      if (outcome?.status === 'awaiting_approval') return waiting;
    }
    return { handedOver: false, settled: !lost && !unfinishedRun(history) };
  } finally {
    clearInterval(heartbeat);
    if (lost) deps.runs.forgetHistory(sessionId);
    else deps.runs.cacheHistory(sessionId, history, lease.token);
  }
}

/**
 * The session's log, read no more than needed: nothing for a session created
 * with the message, nothing when this process held the lease last (its token
 * is the next one: nobody wrote since), else what came after the cached log.
 */
async function knownHistory(deps: SessionRunnerDeps, sessionId: string, claim: ClaimedSession): Promise<LogRecord[]> {
  if (claim.created) return [];
  const cached = deps.runs.cachedHistory(sessionId);
  if (!cached) return deps.sessions.readLog(sessionId);
  if (!claim.takeover && claim.lease.token === cached.token + 1) return [...cached.history];
  // An edit or a regenerate among the new records sets cached ones aside.
  return activeBranch([...cached.history, ...(await deps.sessions.readLog(sessionId, lastSeq(cached.history)))]);
}

/** The highest position in a log (records may be out of order: concurrent tool results). */
function lastSeq(records: readonly LogRecord[]): number {
  let last = 0;
  for (const record of records) if (record.seq > last) last = record.seq;
  return last;
}
