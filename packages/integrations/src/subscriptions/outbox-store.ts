import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '@zero/runtime/store/keys';
import { outboxDeliveryItem, outboxDeliveryKey, type OutboxDelivery } from '@zero/runtime/store/items/outbox-delivery';
import { Table, type Item } from '@zero/runtime/store/table';

export type { OutboxDelivery } from '@zero/runtime/store/items/outbox-delivery';

/** How an attempt ended, as the record keeps it. */
export interface AttemptRecord {
  last_status?: number;
  last_error?: string;
}

const dueSort = (record: Pick<OutboxDelivery, 'next_at' | 'subscription_id' | 'message_id'>) => keys.outboxDueSort(record.next_at, record.subscription_id, record.message_id);

/**
 * The outbox's items: written before the first attempt, claimed by one
 * sender at a time, settled when delivered or failed for good. Single-item
 * conditional writes only; the `attempts` counter is the fence: a sender
 * records an outcome only while the count is the one its claim set.
 */
export class OutboxStore {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  /** Writes a new record, due now; false when the same message is on its way to that subscriber already. */
  create(record: OutboxDelivery): Promise<boolean> {
    return this.items.putNew({
      ...outboxDeliveryKey(record.subscription_id, record.message_id),
      v: outboxDeliveryItem.version,
      ...record,
      gsi1pk: keys.outboxDue,
      gsi1sk: dueSort(record),
    });
  }

  /**
   * Writes a record held for its writer (due at `record.next_at`, the writer's lease), or replaces one
   * that is held still (nothing sent, never claimed): the latest ending of a run is the one reported.
   * False when the message is on its way to that subscriber already.
   */
  hold(record: OutboxDelivery): Promise<boolean> {
    return this.items.put(
      { ...outboxDeliveryKey(record.subscription_id, record.message_id), v: outboxDeliveryItem.version, ...record, gsi1pk: keys.outboxDue, gsi1sk: dueSort(record) },
      { expression: 'attribute_not_exists(pk) OR (#status = :pending AND attempts = :zero)', names: { '#status': 'status' }, values: { ':pending': 'pending', ':zero': 0 } },
    );
  }

  /** Removes a held record that was never sent (its ending was never stored), unless it changed since it was read. */
  discard(record: OutboxDelivery): Promise<boolean> {
    return this.items.delete(outboxDeliveryKey(record.subscription_id, record.message_id), {
      expression: '#status = :pending AND attempts = :zero AND updated_at = :seen',
      names: { '#status': 'status' },
      values: { ':pending': 'pending', ':zero': 0, ':seen': record.updated_at },
    });
  }

  /** Moves a held record's next attempt to `nextAt` (its ending may still be stored), unless it changed since it was read. */
  async postpone(record: OutboxDelivery, nextAt: Date): Promise<boolean> {
    const next = { ...record, next_at: nextAt.toISOString() };
    return !!(await this.items.update(outboxDeliveryKey(record.subscription_id, record.message_id), {
      set: 'SET next_at = :next, gsi1sk = :sort',
      condition: '#status = :pending AND attempts = :zero AND updated_at = :seen',
      names: { '#status': 'status' },
      values: { ':next': next.next_at, ':sort': dueSort(next), ':pending': 'pending', ':zero': 0, ':seen': record.updated_at },
    }));
  }

  async get(subscriptionId: string, messageId: string): Promise<OutboxDelivery | undefined> {
    const item = await this.items.get(outboxDeliveryKey(subscriptionId, messageId), { consistent: true });
    return item && outboxDeliveryItem.decode(item);
  }

  /**
   * Takes a pending record whose time has come for one attempt: counts the
   * attempt and moves `next_at` to the end of the lease, so no other sender
   * (a sweep elsewhere) takes it meanwhile. Undefined when another sender
   * took it first, or it was settled. `held`: its writer takes a record it
   * held (see `hold`) before the hold is over, the ending it reports stored.
   */
  async claim(record: OutboxDelivery, now: number, leaseMs: number, held = false): Promise<OutboxDelivery | undefined> {
    const nextAt = new Date(now + leaseMs).toISOString();
    const written = await this.items.update(outboxDeliveryKey(record.subscription_id, record.message_id), {
      set: 'SET attempts = :next, next_at = :lease, gsi1sk = :sort, updated_at = :now',
      condition: `#status = :pending AND attempts = :seen${held ? '' : ' AND next_at <= :now'}`,
      names: { '#status': 'status' },
      values: {
        ':next': record.attempts + 1,
        ':seen': record.attempts,
        ':lease': nextAt,
        ':sort': dueSort({ ...record, next_at: nextAt }),
        ':now': new Date(now).toISOString(),
        ':pending': 'pending',
      },
      returns: 'ALL_NEW',
    });
    return written && outboxDeliveryItem.decode(written);
  }

  /** Records a failed attempt to be tried again at `nextAt`; false when the claim was lost (another sender took over). */
  async retryLater(claimed: OutboxDelivery, outcome: AttemptRecord, nextAt: Date, now: number): Promise<OutboxDelivery | undefined> {
    const next = { ...claimed, ...outcome, next_at: nextAt.toISOString(), updated_at: new Date(now).toISOString() };
    const written = await this.items.update(outboxDeliveryKey(claimed.subscription_id, claimed.message_id), {
      set: `SET next_at = :next, gsi1sk = :sort, updated_at = :now${setOutcome(outcome)}${removeOutcome(outcome)}`,
      condition: '#status = :pending AND attempts = :claimed',
      names: { '#status': 'status' },
      values: { ':next': next.next_at, ':sort': dueSort(next), ':now': next.updated_at, ':claimed': claimed.attempts, ':pending': 'pending', ...outcomeValues(outcome) },
    });
    return written ? next : undefined;
  }

  /** Ends a record: delivered, or failed for good (kept for inspection until `expiresAt`). Undefined when the claim was lost. */
  async settle(
    claimed: OutboxDelivery,
    status: 'delivered' | 'failed',
    outcome: AttemptRecord & { attempts?: number },
    expiresAt: number,
    now: number,
  ): Promise<OutboxDelivery | undefined> {
    const attempts = outcome.attempts ?? claimed.attempts;
    const { attempts: _a, ...kept } = outcome;
    const settled: OutboxDelivery = { ...claimed, ...kept, status, attempts, updated_at: new Date(now).toISOString(), expires_at: expiresAt };
    const written = await this.items.update(outboxDeliveryKey(claimed.subscription_id, claimed.message_id), {
      set: `SET #status = :status, attempts = :attempts, updated_at = :now, expires_at = :expires${setOutcome(kept)} REMOVE gsi1pk, gsi1sk${removeList(kept)}`,
      condition: '#status = :pending AND attempts = :claimed',
      names: { '#status': 'status' },
      values: { ':status': status, ':attempts': attempts, ':now': settled.updated_at, ':expires': expiresAt, ':claimed': claimed.attempts, ':pending': 'pending', ...outcomeValues(kept) },
    });
    return written ? settled : undefined;
  }

  /** Pending records whose next attempt is due by `now` (or whose sender's lease ran out), oldest first. */
  async due(now: Date, limit: number): Promise<OutboxDelivery[]> {
    const items = await this.items.query({ pk: keys.outboxDue, index: 'gsi1', between: ['0', `${now.toISOString()}#~`], limit });
    return items.map((item) => outboxDeliveryItem.decode(item));
  }

  /** When the earliest pending record is next due (a retry's time, or a sender's lease ending), if any record is pending. */
  async nextDue(): Promise<Date | undefined> {
    const [first] = await this.items.query({ pk: keys.outboxDue, index: 'gsi1', limit: 1 });
    return first ? new Date(outboxDeliveryItem.decode(first).next_at) : undefined;
  }

  /** A subscriber's records, newest first (at most `limit`; settled ones leave with the table's TTL). */
  async list(subscriptionId: string, limit: number): Promise<OutboxDelivery[]> {
    const items: Item[] = await this.items.query({ pk: keys.subscription(subscriptionId), prefix: keys.outboxPrefix, limit: 1000 });
    return items
      .map((item) => outboxDeliveryItem.decode(item))
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, limit);
  }
}

// The outcome's fields are set when known and removed when not, so a record never shows an older attempt's status beside a newer error.
const setOutcome = (o: AttemptRecord) => `${o.last_status !== undefined ? ', last_status = :last_status' : ''}${o.last_error !== undefined ? ', last_error = :last_error' : ''}`;
const removeList = (o: AttemptRecord) => `${o.last_status === undefined ? ', last_status' : ''}${o.last_error === undefined ? ', last_error' : ''}`;
const removeOutcome = (o: AttemptRecord) => {
  const list = removeList(o);
  return list ? ` REMOVE ${list.slice(2)}` : '';
};
const outcomeValues = (o: AttemptRecord) => ({
  ...(o.last_status !== undefined ? { ':last_status': o.last_status } : {}),
  ...(o.last_error !== undefined ? { ':last_error': o.last_error } : {}),
});
