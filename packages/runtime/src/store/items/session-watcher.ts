import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `WATCH#<user>#<stream>`. */
export const sessionWatcherKey = (sessionId: string, userId: string, streamId: string) => ({ pk: keys.session(sessionId), sk: keys.watcher(userId, streamId) });

/**
 * A live view open on a session. `until` (epoch ms) is pushed forward while
 * the stream lives; past it the stream's process died. `expires_at` (epoch
 * seconds) is the table's TTL, which removes the item some time later.
 */
export const sessionWatcherSchema = z.object({
  user_id: z.string(),
  name: z.string().optional(),
  since: z.string(),
  until: z.number().int(),
  expires_at: z.number().int(),
});
export type SessionWatcherItem = z.infer<typeof sessionWatcherSchema>;

/** Versions: 1 (every item so far). */
export const sessionWatcherItem = storedItem<SessionWatcherItem>('session watcher', { 1: sessionWatcherSchema });
