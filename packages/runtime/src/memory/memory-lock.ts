import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict } from '@zero/agent/errors';
import { keys } from '../store/keys';
import { Table } from '../store/table';

/** How a store's writers take turns. */
export interface MemoryLockOptions {
  /** A holder that died frees the lock after this long; a write takes a few S3 calls, far less. */
  ttlMs: number;
  /** How long a writer waits for the lock before it gives up with a conflict. */
  waitMs: number;
}

export const DEFAULT_MEMORY_LOCK: MemoryLockOptions = { ttlMs: 15_000, waitMs: 5_000 };

/**
 * One writer at a time per memory store, through a conditional DynamoDB item
 * (`MEMORY#<store>` / `LOCK`). S3 would do this with conditional writes
 * (`If-Match` on PUT), but s3rver ignores those headers, so the local stack
 * could not test it; a lock over the whole store also makes its size cap hold
 * when two sessions write at once. Under the lock a writer reads the file,
 * checks the hash it was given, and writes: a stale hash is a conflict, never
 * a lost update.
 */
export class MemoryLocks {
  private readonly items: Table;

  constructor(
    db: DynamoDBDocumentClient,
    table: string,
    private readonly options: MemoryLockOptions = DEFAULT_MEMORY_LOCK,
  ) {
    this.items = new Table(db, table);
  }

  /** Runs `body` holding the store's lock; a conflict when the lock stays taken for `waitMs`. */
  async withLock<T>(store: string, body: () => Promise<T>): Promise<T> {
    const key = keys.memoryLock(store);
    const token = randomUUID();
    const giveUp = Date.now() + this.options.waitMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
      const now = Date.now();
      const taken = await this.items.put(
        // `lease_until` (ms) decides; `expires_at` (epoch seconds) lets the table's TTL delete a lock left behind.
        { ...key, v: 1, token, lease_until: now + this.options.ttlMs, expires_at: Math.ceil((now + this.options.ttlMs) / 1000) + 3600 },
        // A lock an earlier version left kept its lease in `expires_at` (ms), with no `lease_until`.
        { expression: 'attribute_not_exists(pk) OR lease_until < :now OR (attribute_not_exists(lease_until) AND expires_at < :now)', values: { ':now': now } },
      );
      if (taken) break;
      if (now > giveUp) throw conflict(`the memory store ${store} is being written by another session; try again`, { field: 'path' });
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    }
    try {
      return await body();
    } finally {
      // `token` is a reserved word of DynamoDB's expressions: named through a placeholder. A lock that cannot be
      // released here (the store is unreachable) frees itself after ttlMs.
      await this.items.delete(key, { expression: '#token = :t', names: { '#token': 'token' }, values: { ':t': token } }).catch(() => undefined);
    }
  }
}
