import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/**
 * What identifies a delivery: the id its sender gave it, or (GitHub, which
 * signs only the body) the SHA-256 of its body, so a signed body sent again
 * under a fresh delivery id is still recognised.
 */
export type DeliveryMark = { delivery: string } | { body_sha256: string };

/** `WEBHOOK#<hook>` / `DELIVERY#<id>` or `BODY#<sha256>`. */
export const deliveryClaimKey = (hookId: string, mark: DeliveryMark) => ({
  pk: keys.webhook(hookId),
  sk: 'delivery' in mark ? keys.delivery(mark.delivery) : keys.deliveryBody(mark.body_sha256),
});

/** The claim on a delivery id: whichever request writes it first starts the run; the others are duplicates. */
export interface DeliveryClaim {
  session_id: string;
  run_id: string;
}

/** The stored claim; it expires through the table's `expires_at` TTL (epoch seconds). */
export const deliveryClaimSchema = z.object({
  session_id: z.string(),
  run_id: z.string(),
  at: z.string(),
  expires_at: z.number().int(),
});
export type StoredDeliveryClaim = z.infer<typeof deliveryClaimSchema>;

/** Versions: 0, written without `v` (before issue 13); 1, the same fields with `v: 1`. */
export const deliveryClaimItem = storedItem<StoredDeliveryClaim>('webhook delivery claim', { 0: deliveryClaimSchema, 1: deliveryClaimSchema });
