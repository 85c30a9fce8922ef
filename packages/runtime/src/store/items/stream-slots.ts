import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `USER#<id>` / `STREAMS`. */
export const streamSlotsKey = (userId: string) => keys.userStreams(userId);

/**
 * The live-view streams a user has open: each open stream's random id and
 * the time it ends at the latest (epoch ms). `version` is the optimistic
 * lock of the item's rewrites (no schema version: that is `v`).
 */
export const streamSlotsSchema = z.object({
  slots: z.record(z.string(), z.number()),
  version: z.number().int(),
});
export type StreamSlotsItem = z.infer<typeof streamSlotsSchema>;

/** Versions: 0, written without `v` (before issue 13); 1, the same fields with `v: 1`. */
export const streamSlotsItem = storedItem<StreamSlotsItem>('stream slots', { 0: streamSlotsSchema, 1: streamSlotsSchema });
