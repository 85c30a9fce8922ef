import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { streamSlotsItem, streamSlotsKey } from './items/stream-slots';
import type { ItemKey } from './stored-item';
import { keys } from './keys';
import { Table } from './table';

export const DEFAULT_MAX_STREAMS_PER_USER = 20;
export const DEFAULT_MAX_STREAMS_PER_SESSION = 100;

/** Gives a place back; safe to call more than once, never throws. */
export type ReleaseSlot = () => Promise<void>;

/**
 * The live-view streams each user has open, across every instance: one item
 * per user mapping each open stream to the time it ends at the latest. On
 * Lambda every stream is an invocation of its own, so a count kept in memory
 * would cap nothing. A stream whose process died before giving its place
 * back holds it only until that time.
 */
export class StreamSlots {
  private readonly items: Table;

  constructor(
    db: DynamoDBDocumentClient,
    table: string,
    /** How many streams one user may have open at once. */
    readonly perUser: number = DEFAULT_MAX_STREAMS_PER_USER,
    /** How many streams may be open on one session at once, by all its members together. */
    readonly perSession: number = DEFAULT_MAX_STREAMS_PER_SESSION,
  ) {
    this.items = new Table(db, table);
  }

  /** Takes a place for a stream that lasts at most `ttlMs`; undefined when the user already has `perUser` open. */
  acquire(userId: string, ttlMs: number): Promise<ReleaseSlot | undefined> {
    return this.take(streamSlotsKey(userId), this.perUser, ttlMs, `user ${userId}`);
  }

  /** The same for the session's own count: undefined when `perSession` streams are open on it. */
  acquireSession(sessionId: string, ttlMs: number): Promise<ReleaseSlot | undefined> {
    return this.take(keys.sessionStreams(sessionId), this.perSession, ttlMs, `session ${sessionId}`);
  }

  private async take(key: ItemKey, limit: number, ttlMs: number, owner: string): Promise<ReleaseSlot | undefined> {
    const slot = randomBytes(8).toString('hex');
    let released = false;
    const release: ReleaseSlot = async () => {
      if (released) return;
      released = true;
      await this.release(key, slot).catch(() => undefined);
    };
    for (let attempt = 0; ; attempt++) {
      // The common case, one atomic write: a place is free without dropping any stream that ended.
      const taken = await this.items.update(key, {
        set: 'SET slots.#slot = :until ADD version :one',
        condition: 'size(slots) < :limit',
        names: { '#slot': slot },
        values: { ':until': Date.now() + ttlMs, ':one': 1, ':limit': limit },
      });
      if (taken) return release;
      // Full, or no item yet: drop the places of streams that should have ended (their process died), if any.
      const item = await this.items.get(key, { consistent: true });
      const current = item ? streamSlotsItem.decode(item) : { slots: {}, version: 0 };
      const now = Date.now();
      const open = Object.entries(current.slots).filter(([, until]) => until > now);
      if (open.length >= limit) return undefined;
      const written = await this.items.put(
        { ...key, v: streamSlotsItem.version, slots: Object.fromEntries([...open, [slot, now + ttlMs]]), version: current.version + 1 },
        // Conditional on the version read: a place taken or given back meanwhile is not overwritten.
        item ? { expression: 'version = :v', values: { ':v': current.version } } : { expression: 'attribute_not_exists(pk)' },
      );
      if (written) return release;
      if (attempt >= 10) throw new Error(`the stream places of ${owner} kept changing; gave up after ${attempt + 1} attempts`);
    }
  }

  private async release(key: ItemKey, slot: string): Promise<void> {
    // Bumping the version makes a writer that read this place as taken read again.
    await this.items.update(key, {
      set: 'REMOVE slots.#slot ADD version :one',
      condition: 'attribute_exists(pk)',
      names: { '#slot': slot },
      values: { ':one': 1 },
    });
  }
}
