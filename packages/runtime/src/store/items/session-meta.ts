import * as z from 'zod';
import { sessionSchema } from '@zero/agent/wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `META`. The item also holds the inbox's counter `inbox_seq`, which is no part of the metadata. */
export const sessionMetaKey = (sessionId: string) => ({ pk: keys.session(sessionId), sk: keys.meta });

/** A session's metadata item: the session as the API shows it, versioned. */
export const sessionMetaSchema = z.object({ v: z.literal(1), ...sessionSchema.shape });
export type SessionMeta = z.infer<typeof sessionMetaSchema>;

/** Versions: 1 (every item so far). */
export const sessionMetaItem = storedItem<SessionMeta>('session meta', { 1: sessionMetaSchema });
