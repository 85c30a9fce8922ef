import { ZeroError } from '../errors';
import { LeaseLostError, type LeaseStore, type RunLease, type StopRequest } from './lease-store';
import type { SessionStore } from './session-store';

/**
 * Hands out log positions from blocks reserved on the lease (one conditional
 * write per block instead of per record). A block's unused positions stay
 * empty; a holder that takes an expired lease over seals them, so a stalled
 * writer can never fill them later.
 */
export class PositionPool {
  private free: number[] = [];
  private refill?: Promise<void>;

  constructor(
    private readonly leases: LeaseStore,
    private readonly lease: RunLease,
    private readonly log: 'log' | 'event',
    private readonly block: number,
    /** The run the positions are for: each block names it on the lease, so cancel finds it. */
    private readonly runId: string,
    private readonly onStop: (stop: StopRequest | undefined) => void,
  ) {}

  async next(): Promise<number> {
    while (this.free.length === 0) {
      this.refill ??= this.leases
        .allocate(this.lease, this.log, this.block, this.runId)
        .then(({ first, stop }) => {
          for (let i = 0; i < this.block; i++) this.free.push(first + i);
          this.onStop(stop);
        })
        .finally(() => {
          this.refill = undefined;
        });
      await this.refill;
    }
    return this.free.shift()!;
  }
}

/** Writes `void` into positions a dead holder reserved but never wrote, so it can never write them later. */
export async function seal(sessions: SessionStore, sessionId: string, lease: RunLease, lastLog: number, lastEvent: number): Promise<void> {
  for (let seq = lastLog + 1; seq <= lease.nextLog; seq++) {
    await sessions.append(sessionId, seq, { kind: 'void', run_id: 'sealed' }).catch(() => undefined);
  }
  for (let seq = lastEvent + 1; seq <= lease.nextEvent; seq++) {
    await sessions.putEvents(sessionId, { seq, run_id: 'sealed', events: [] }).catch(() => undefined);
  }
}

/**
 * A write refused at a position the lease handed out means another instance
 * sealed it: that instance took the lease over.
 */
export function fencedOut(error: unknown): never {
  if (ZeroError.isInstance(error) && error.code === 'conflict') throw new LeaseLostError(error.message);
  throw error;
}
