import * as z from 'zod';
import { streamEventSchema } from '@zero/agent/wire';
import { keys, objectKeys } from '../keys';
import { storedItem } from '../stored-item';

/**
 * `SESSION#<id>` / `EVT#<seq>`, seq zero-padded. A batch over
 * `OFFLOAD_BYTES` is stored whole in S3 (`objectKey`) and the item keeps
 * `v`, `seq`, `run_id` and `offload`, the object's key.
 */
export const eventBatchKey = (sessionId: string, seq: number) => ({ pk: keys.session(sessionId), sk: keys.event(seq) });
export const eventBatchObjectKey = objectKeys.events;

/** The event log after `afterSeq`: a sort-key range. */
export const eventRange = (afterSeq = 0): [string, string] => [keys.event(afterSeq + 1), keys.eventEnd];
export const eventPrefix = keys.eventPrefix;

/** A batch of streamed events stored under one sequence number; event ids are `<seq>.<index>`. */
export const eventBatchSchema = z.object({
  seq: z.number().int().positive(),
  run_id: z.string(),
  events: z.array(streamEventSchema),
});
export type EventBatch = z.infer<typeof eventBatchSchema>;

/**
 * Versions: 0, written without `v` (before issue 13); 1, the same fields
 * with `v: 1`. Both decode to `EventBatch`, which carries no version.
 */
export const eventBatchItem = storedItem<EventBatch>('event batch', { 0: eventBatchSchema, 1: eventBatchSchema });
