import type { StreamEvent } from '@zero/agent/wire';
import type { RunLease } from '../store/lease-store';
import { seal, takePosition } from '../store/positions';
import type { LogRecord } from '../store/records';
import { eventKey, missingEvents, recordKeys } from './missing-events';
import type { SessionRunnerDeps } from './runner-deps';

/**
 * What a holder does first when it takes a dead holder's lease over: seals
 * the positions the dead holder reserved but never wrote, then restores the
 * events of records it stored but never got into the event log.
 */
export async function takeOver(deps: Pick<SessionRunnerDeps, 'sessions' | 'leases'>, sessionId: string, lease: RunLease, history: readonly LogRecord[], lastLog: number): Promise<void> {
  const lastEvent = await deps.sessions.lastEventSeq(sessionId);
  await seal(deps.sessions, sessionId, lease, lastLog, lastEvent);
  await restoreEvents(deps, sessionId, lease, history, lastEvent);
}

/** How many of the log's last records a takeover checks for events that never reached the event log. */
const RESTORE_RECORDS = 50;
/** Event batches read at a time, going back from the end, until they reach the oldest of those records' events. */
const RESTORE_BATCHES = 50;

/**
 * After a takeover: writes the events of stored records that the previous
 * holder never got into the event log (it died between storing a record and
 * writing its event batch), derived from the records, so a reader of the
 * event log sees every stored record.
 */
async function restoreEvents(deps: Pick<SessionRunnerDeps, 'sessions' | 'leases'>, sessionId: string, lease: RunLease, history: readonly LogRecord[], lastEvent: number) {
  const candidates = [...history]
    .filter((r) => r.kind !== 'void')
    .sort((a, b) => a.seq - b.seq)
    .slice(-RESTORE_RECORDS);
  if (candidates.length === 0) return;
  const earliestSeq = candidates[0]!.seq;
  const seqOf = new Map(history.flatMap((r) => recordKeys(r).map((key) => [key, r.seq] as const)));
  const logged: StreamEvent[] = [];
  // Read back until the batches reach the event of a record at or before the oldest candidate (or the log's
  // start), and one window more: concurrent tool results may log their events out of record order.
  let extra = 1;
  for (let to = lastEvent; to > 0 && extra >= 0; to -= RESTORE_BATCHES) {
    const from = Math.max(1, to - RESTORE_BATCHES + 1);
    const events = (await deps.sessions.readEvents(sessionId, from - 1, to - from + 1)).flatMap((b) => b.events);
    logged.unshift(...events);
    const reached = events.some((e) => {
      const key = eventKey(e);
      return key !== undefined && (seqOf.get(key) ?? Infinity) <= earliestSeq;
    });
    if (reached || extra < 1) extra--;
  }
  const events = missingEvents(sessionId, candidates, logged);
  if (events.length === 0) return;
  const seq = await takePosition(deps.leases, lease, 'event');
  await deps.sessions.putEvents(sessionId, { seq, run_id: candidates.at(-1)!.run_id, events });
}
