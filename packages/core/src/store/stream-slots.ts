import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { isConditionFailure } from './session-store';

export const DEFAULT_MAX_STREAMS_PER_USER = 20;

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
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    /** How many streams one user may have open at once. */
    readonly perUser: number = DEFAULT_MAX_STREAMS_PER_USER,
  ) {}

  /** Takes a place for a stream that lasts at most `ttlMs`; undefined when the user already has `perUser` open. */
  async acquire(userId: string, ttlMs: number): Promise<ReleaseSlot | undefined> {
    const key = keys.userStreams(userId);
    const slot = randomBytes(8).toString('hex');
    let released = false;
    const release: ReleaseSlot = async () => {
      if (released) return;
      released = true;
      await this.release(key, slot).catch(() => undefined);
    };
    for (let attempt = 0; ; attempt++) {
      // The common case, one atomic write: a place is free without dropping any stream that ended.
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'SET slots.#slot = :until ADD version :one',
            ConditionExpression: 'size(slots) < :limit',
            ExpressionAttributeNames: { '#slot': slot },
            ExpressionAttributeValues: { ':until': Date.now() + ttlMs, ':one': 1, ':limit': this.perUser },
          }),
        );
        return release;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      // Full, or no item yet: drop the places of streams that should have ended (their process died), if any.
      const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
      const now = Date.now();
      const open = Object.entries((Item?.slots ?? {}) as Record<string, number>).filter(([, until]) => until > now);
      if (open.length >= this.perUser) return undefined;
      const version = Number(Item?.version ?? 0);
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: { ...key, slots: Object.fromEntries([...open, [slot, now + ttlMs]]), version: version + 1 },
            // Conditional on the version read: a place taken or given back meanwhile is not overwritten.
            ...(Item ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } } : { ConditionExpression: 'attribute_not_exists(pk)' }),
          }),
        );
        return release;
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= 10) throw error;
      }
    }
  }

  private async release(key: { pk: string; sk: string }, slot: string): Promise<void> {
    // Bumping the version makes a writer that read this place as taken read again.
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: 'REMOVE slots.#slot ADD version :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#slot': slot },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }
}
