import { ZeroError } from '@zero/agent/errors';
import { LeaseLostError, type LeaseStore, type PositionReservation, type RunLease, type StopRequest } from './lease-store';
import type { SessionStore } from './session-store';

/**
 * The positions a run's lease reserves at a time: the acquire reserves the
 * first blocks in its own write, and a pool reserves the next block when half
 * of the last is used, before it is needed.
 */
export const POSITION_BLOCKS: PositionReservation = { log: 16, event: 8 };

/** Each lease's block reservation in flight, per log (a run's pools share the lease's reserved positions). */
const refills = new WeakMap<number[], Promise<void>>();

/**
 * Hands out one run's positions in a log, from the blocks reserved on its
 * lease (one conditional write per block instead of per record): first those
 * the acquire reserved, then blocks reserved ahead of need, off the run's
 * path. A block's unused positions stay empty; a holder that takes an
 * expired lease over seals them, so a stalled writer can never fill them
 * later. Positions are handed out in ascending order.
 */
export class PositionPool {
  constructor(
    private readonly leases: LeaseStore,
    private readonly lease: RunLease,
    private readonly log: 'log' | 'event',
    private readonly block: number,
    /** The run the positions are for: the lease must name it, so cancel finds it. */
    private readonly runId: string,
    private readonly onStop: (stop: StopRequest | undefined) => void,
  ) {}

  async next(): Promise<number> {
    const free = this.lease.reserved[this.log];
    // A run after the first of a drain: its first block names it on the lease.
    while (this.lease.runId !== this.runId) await this.refill();
    while (free.length === 0) await this.refill();
    const seq = free.shift()!;
    if (free.length <= this.block / 2) this.refill().catch(() => undefined);
    return seq;
  }

  /**
   * Takes `seq` when it is the next free position (records written together in one item need consecutive
   * positions): false when it is not (a block's end, or another record took it first).
   */
  takeNext(seq: number): boolean {
    const free = this.lease.reserved[this.log];
    if (this.lease.runId !== this.runId || free[0] !== seq) return false;
    free.shift();
    if (free.length <= this.block / 2) this.refill().catch(() => undefined);
    return true;
  }

  /** Reserves the next block, or joins the reservation in flight. A failure (a lost lease) surfaces when the pool runs dry. */
  private refill(): Promise<void> {
    const free = this.lease.reserved[this.log];
    let refill = refills.get(free);
    if (!refill) {
      refill = this.leases
        .allocate(this.lease, this.log, this.block, this.runId)
        .then(({ first, stop }) => {
          for (let i = 0; i < this.block; i++) free.push(first + i);
          free.sort((a, b) => a - b);
          this.onStop(stop);
        })
        .finally(() => refills.delete(free));
      refills.set(free, refill);
    }
    return refill;
  }
}

/**
 * One position outside a run (a takeover's restored events): the lease's
 * lowest reserved one, so every position of a lease is handed out in
 * ascending order (a reader that has seen a position never looks below it).
 */
export async function takePosition(leases: LeaseStore, lease: RunLease, log: 'log' | 'event'): Promise<number> {
  return lease.reserved[log].shift() ?? (await leases.allocate(lease, log, 1)).first;
}

/**
 * Writes `void` into the positions a dead holder reserved but never wrote
 * (from the last written up to the counters it left), so it can never write
 * them later.
 */
export async function seal(sessions: SessionStore, sessionId: string, lease: RunLease, lastLog: number, lastEvent: number): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let seq = lastLog + 1; seq <= lease.inherited.log; seq++) {
    writes.push(sessions.append(sessionId, seq, { kind: 'void', run_id: 'sealed' }).catch(() => undefined));
  }
  for (let seq = lastEvent + 1; seq <= lease.inherited.event; seq++) {
    writes.push(sessions.putEvents(sessionId, { seq, run_id: 'sealed', events: [] }).catch(() => undefined));
  }
  await Promise.all(writes);
}

/**
 * A write refused at a position the lease handed out means another instance
 * sealed it: that instance took the lease over.
 */
export function fencedOut(error: unknown): never {
  if (ZeroError.isInstance(error) && error.code === 'conflict') throw new LeaseLostError(error.message);
  throw error;
}
