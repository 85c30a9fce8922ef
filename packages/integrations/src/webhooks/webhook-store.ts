import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setExpression } from '@zero/runtime/store/expressions';
import { deliveryClaimItem, deliveryClaimKey, type DeliveryClaim, type DeliveryMark } from '@zero/runtime/store/items/webhook-delivery';
import { sessionSummaryItem, sessionSummaryKey, type SessionSummary } from '@zero/runtime/store/items/session-summary';
import { Table } from '@zero/runtime/store/table';

export { sessionSummarySchema, type SessionSummary } from '@zero/runtime/store/items/session-summary';
export type { DeliveryClaim, DeliveryMark } from '@zero/runtime/store/items/webhook-delivery';

/**
 * Webhook items of the single table: delivery claims (one per hook and
 * delivery id or body hash, expiring through the table's `expires_at` TTL) and each
 * investigation's summary, beside its session's other items.
 */
export class WebhookStore {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  /**
   * Claims a delivery id or body hash with a conditional put. Returns
   * undefined when this request won, or the winner's claim when the mark was
   * seen before (a redelivery, a replay, or a concurrent copy of the same delivery).
   */
  async claimDelivery(hookId: string, mark: DeliveryMark, claim: DeliveryClaim, ttlSeconds: number): Promise<DeliveryClaim | undefined> {
    const now = Date.now();
    const key = deliveryClaimKey(hookId, mark);
    const item = { ...key, v: deliveryClaimItem.version, ...claim, at: new Date(now).toISOString(), expires_at: Math.ceil(now / 1000) + ttlSeconds };
    if (await this.items.putNew(item)) return undefined;
    const winner = await this.items.get(key, { consistent: true });
    // Released (or expired) between the two requests: the winner is gone, and with it any run to point at.
    if (!winner) return { session_id: '', run_id: '' };
    const { session_id, run_id } = deliveryClaimItem.decode(winner);
    return { session_id, run_id };
  }

  /** Gives a claim up, so the sender's retry of a delivery that failed here is not taken for a duplicate. */
  async releaseDelivery(hookId: string, mark: DeliveryMark): Promise<void> {
    await this.items.delete(deliveryClaimKey(hookId, mark));
  }

  async putSummary(summary: SessionSummary): Promise<void> {
    await this.items.put({ ...sessionSummaryKey(summary.session_id), ...summary });
  }

  async getSummary(sessionId: string): Promise<SessionSummary | undefined> {
    const item = await this.items.get(sessionSummaryKey(sessionId));
    return item && sessionSummaryItem.decode(item);
  }

  /**
   * Sets some fields of a summary that exists (and, with `ifStatus`, whose
   * status is still that). Returns false when there was none to change.
   */
  async updateSummary(
    sessionId: string,
    fields: Partial<Omit<SessionSummary, 'v' | 'session_id' | 'run_id' | 'origin'>>,
    ifStatus?: SessionSummary['status'],
  ): Promise<boolean> {
    const update = setExpression(fields);
    if (!update) return true;
    // False when the session was deleted meanwhile, or another process changed the status first.
    const written = await this.items.update(sessionSummaryKey(sessionId), {
      set: update.set,
      condition: ifStatus ? 'attribute_exists(pk) AND #status = :status' : 'attribute_exists(pk)',
      names: { ...update.names, ...(ifStatus ? { '#status': 'status' } : {}) },
      values: { ...update.values, ...(ifStatus ? { ':status': ifStatus } : {}) },
    });
    return written !== undefined;
  }
}
