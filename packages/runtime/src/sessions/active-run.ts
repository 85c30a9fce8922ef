import type { EventPosition } from '@zero/agent/events/ids';
import type { IdentifiedEvent } from '@zero/agent/events/recorder';
import { followSession } from './feed';
import type { SessionRunnerDeps } from './runner-deps';

/**
 * Where the session's active run begins in the event log. Runs are written
 * as batches tagged with their run id, so the log is read backwards in
 * widening windows until the run's first batch: the cost follows the run's
 * length, not the session's. Undefined when no run is active (or it has
 * already ended). `waits`: how often the run already waited for approvals
 * (each wait a `done` with `awaiting_approval`, which a replay passes over).
 */
export async function activeRunStart(
  deps: Pick<SessionRunnerDeps, 'leases' | 'sessions'>,
  sessionId: string,
): Promise<{ runId: string; after: EventPosition; waits: number } | undefined> {
  const lease = await deps.leases.inspect(sessionId);
  if (!lease?.active || !lease.run_id) return undefined;
  const runId = lease.run_id;
  const last = await deps.sessions.lastEventSeq(sessionId);
  let mine: Awaited<ReturnType<typeof deps.sessions.readEvents>> = [];
  for (let window = 8; ; window *= 4) {
    const from = Math.max(0, last - window);
    const batches = await deps.sessions.readEvents(sessionId, from);
    mine = batches.filter((b) => b.run_id === runId);
    if (mine.some((b) => b.events.some((e) => e.type === 'done' && e.status !== 'awaiting_approval'))) return undefined;
    // Runs of a session follow one another: a batch of another run in the window lies before this run's start.
    if (from === 0 || batches.some((b) => b.run_id !== runId)) break;
  }
  const first = mine[0]?.seq ?? last + 1;
  const waits = mine.flatMap((b) => b.events).filter((e) => e.type === 'done' && e.status === 'awaiting_approval').length;
  return { runId, after: { seq: first - 1, index: Number.MAX_SAFE_INTEGER }, waits };
}

/**
 * One run's events from a position, ending with its `done`. `pastWaits`:
 * that many waits for approvals (the run was resumed after them) are passed
 * over, so a replay of a resumed run reads as one answer.
 */
export async function* followRun(
  deps: Pick<SessionRunnerDeps, 'sessions' | 'runs'>,
  sessionId: string,
  runId: string,
  after: EventPosition,
  signal: AbortSignal,
  pastWaits = 0,
): AsyncGenerator<IdentifiedEvent> {
  let waitsToPass = pastWaits;
  for await (const event of followSession(deps, sessionId, { after, signal })) {
    if (!('run_id' in event) || event.run_id !== runId) continue;
    if (event.type === 'done' && event.status === 'awaiting_approval' && waitsToPass > 0) {
      waitsToPass--;
      continue;
    }
    yield event;
    if (event.type === 'done') return;
  }
}
