import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';
import { roleSchema } from './fields';

/** `SESSION#<id>` / `MEMBER#<user>`. */
export const sessionMemberKey = (sessionId: string, userId: string) => ({ pk: keys.session(sessionId), sk: keys.member(userId) });

/** The membership's place in `gsi1`: a user's sessions, newest first. */
export const sessionMemberIndex = (userId: string, session: { session_id: string; created_at: string }) => ({
  gsi1pk: keys.userSessions(userId),
  gsi1sk: keys.userSessionsSort(session.created_at, session.session_id),
});

/** One member of a session and their role. */
export const memberSchema = z.object({
  user_id: z.string(),
  name: z.string().optional(),
  role: roleSchema,
  added_at: z.string(),
});
export type Member = z.infer<typeof memberSchema>;

/**
 * The member's item also holds `seen_event_seq`: the last event batch they
 * opened the session at or followed to (see `SessionStore.markSeen`). It is
 * no part of `Member`, so the members list does not show others' reading.
 */
const seenSchema = z.object({ seen_event_seq: z.number().int().nonnegative().optional() });
export const seenEventSeq = (item: Record<string, unknown>): number => seenSchema.safeParse(item).data?.seen_event_seq ?? 0;

/**
 * Versions: 0, written without `v` (before issue 13); 1, the same fields
 * with `v: 1`. Both decode to `Member`, which carries no version.
 */
export const sessionMemberItem = storedItem<Member>('session member', { 0: memberSchema, 1: memberSchema });
