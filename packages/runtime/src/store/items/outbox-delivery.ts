import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SUBSCRIPTION#<id>` / `OUT#<message id>`. */
export const outboxDeliveryKey = (subscriptionId: string, messageId: string) => keys.outboxDelivery(subscriptionId, messageId);

/**
 * One event on its way to one subscriber. It holds what a re-send needs and
 * nothing secret: the body as published (ids and outcomes, never what was
 * said) and the attempts so far; the signing secret is looked up from the
 * subscription at each attempt. `next_at` is when it may be tried again, and
 * while an attempt is out it is that attempt's lease: a sweep takes only a
 * record whose `next_at` has passed and whose `attempts` it read (see OutboxStore.claim).
 */
export const outboxDeliverySchema = z.object({
  subscription_id: z.string(),
  message_id: z.string(),
  type: z.string(),
  body: z.string(),
  /** A hook's callback: the session whose summary records how it went. */
  session_id: z.string().optional(),
  /**
   * The run ending (or wait) the record reports, when it was written just before that ending was stored
   * (held: `next_at` is the writer's lease): a sweep sends it only once the session's log holds the
   * ending, and drops it when the ending was never stored (the run's real ending writes its own).
   */
  reports_run: z.object({ session_id: z.string(), run_id: z.string() }).optional(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  /** ISO time. */
  next_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_status: z.number().int().optional(),
  /** Names the target by its origin only: a URL's path may carry a token. */
  last_error: z.string().optional(),
  /** Epoch seconds: the table's TTL removes settled records (and any left behind) after a while. */
  expires_at: z.number().int(),
});
export type OutboxDelivery = z.infer<typeof outboxDeliverySchema>;

/** Versions: 1 (every item so far; `reports_run` is optional, so records written before it still load). */
export const outboxDeliveryItem = storedItem<OutboxDelivery>('outbox delivery', { 1: outboxDeliverySchema });
