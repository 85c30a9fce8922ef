import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { runStatusSchema, usageSchema } from '../wire';
import { keys } from '../store/keys';
import { setExpression } from '../store/expressions';
import { isConditionFailure } from '../store/session-store';

/** What became of a webhook-started investigation: readable at `GET /api/v2/sessions/:id/summary`. */
export const sessionSummarySchema = z.object({
  v: z.literal(1),
  session_id: z.string(),
  /** The run that answers the delivery. */
  run_id: z.string(),
  origin: z.object({
    hook_id: z.string(),
    source: z.enum(['github', 'generic']),
    event: z.string(),
    delivery_id: z.string(),
    received_at: z.string(),
  }),
  /** `accepted` until the run ends, then the run's status. */
  status: z.union([z.literal('accepted'), runStatusSchema]),
  project_id: z.string().optional(),
  /** Gaps in the prompt template and other things the hook's owner should fix. */
  warnings: z.array(z.string()),
  report: z.object({ key: z.string(), path: z.string(), project_id: z.string().optional(), bytes: z.number().int() }).optional(),
  steps: z.number().int().optional(),
  usage: usageSchema.optional(),
  reason: z.string().optional(),
  finished_at: z.string().optional(),
  callback: z
    .object({
      /** Scheme and host only: a callback URL's path and query may carry a token. */
      target: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      last_status: z.number().int().optional(),
      last_error: z.string().optional(),
      at: z.string().optional(),
    })
    .optional(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** The claim on a delivery id: whichever request writes it first starts the run; the others are duplicates. */
export interface DeliveryClaim {
  session_id: string;
  run_id: string;
}

/**
 * What identifies a delivery: the id its sender gave it, or (GitHub, which
 * signs only the body) the SHA-256 of its body, so a signed body sent again
 * under a fresh delivery id is still recognised.
 */
export type DeliveryMark = { delivery: string } | { body_sha256: string };

const SUMMARY = 'SUMMARY';
const markKey = (hookId: string, mark: DeliveryMark) => ({
  pk: `WEBHOOK#${hookId}`,
  sk: 'delivery' in mark ? `DELIVERY#${mark.delivery}` : `BODY#${mark.body_sha256}`,
});

/**
 * Webhook items of the single table: delivery claims (one per hook and
 * delivery id or body hash, expiring through the table's `expires_at` TTL) and each
 * investigation's summary, beside its session's other items.
 */
export class WebhookStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Claims a delivery id or body hash with a conditional put. Returns
   * undefined when this request won, or the winner's claim when the mark was
   * seen before (a redelivery, a replay, or a concurrent copy of the same delivery).
   */
  async claimDelivery(hookId: string, mark: DeliveryMark, claim: DeliveryClaim, ttlSeconds: number): Promise<DeliveryClaim | undefined> {
    const now = Date.now();
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...markKey(hookId, mark), ...claim, at: new Date(now).toISOString(), expires_at: Math.ceil(now / 1000) + ttlSeconds },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: markKey(hookId, mark), ConsistentRead: true }));
      return { session_id: String(Item?.session_id ?? ''), run_id: String(Item?.run_id ?? '') };
    }
  }

  /** Gives a claim up, so the sender's retry of a delivery that failed here is not taken for a duplicate. */
  async releaseDelivery(hookId: string, mark: DeliveryMark): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: markKey(hookId, mark) }));
  }

  async putSummary(summary: SessionSummary): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { pk: keys.session(summary.session_id), sk: SUMMARY, ...summary } }));
  }

  async getSummary(sessionId: string): Promise<SessionSummary | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.session(sessionId), sk: SUMMARY } }));
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...rest } = Item;
    const parsed = sessionSummarySchema.safeParse(rest);
    return parsed.success ? parsed.data : undefined;
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
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(sessionId), sk: SUMMARY },
          UpdateExpression: update.set,
          ConditionExpression: ifStatus ? 'attribute_exists(pk) AND #status = :status' : 'attribute_exists(pk)',
          ExpressionAttributeNames: { ...update.names, ...(ifStatus ? { '#status': 'status' } : {}) },
          ExpressionAttributeValues: { ...update.values, ...(ifStatus ? { ':status': ifStatus } : {}) },
        }),
      );
      return true;
    } catch (error) {
      // The session was deleted meanwhile, or another process changed the status first.
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  }
}
