import * as z from 'zod';
import { authorSchema, rewoundFileSchema, skippedFileSchema } from '@zero/agent/wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `REWIND#<event seq>`: one per rewind, in the order they were made. */
export const sessionRewindKey = (sessionId: string, eventSeq: number) => ({ pk: keys.session(sessionId), sk: keys.rewind(eventSeq) });
export const sessionRewindPrefix = keys.rewindPrefix;

/**
 * A rewind of the session's written area (see `sessions/rewind-files.ts`), kept beside the log: the
 * files it wrote back are a version of each file as the log's writes are, so a later rewind replays it.
 * `after_log_seq`: the log's last record when it was made (it comes between that record and the next).
 */
export const sessionRewindSchema = z.object({
  v: z.literal(1),
  event_seq: z.number().int().positive(),
  after_log_seq: z.number().int().nonnegative(),
  at_event: z.number().int().nonnegative(),
  /** The files changed, with their store keys. */
  files: z.array(rewoundFileSchema.extend({ key: z.string() })),
  skipped: z.array(skippedFileSchema),
  by: authorSchema,
  at: z.string(),
});
export type SessionRewind = z.infer<typeof sessionRewindSchema>;

/** Versions: 1 (every item so far). */
export const sessionRewindItem = storedItem<SessionRewind>('session rewind', { 1: sessionRewindSchema });
