import * as z from 'zod';
import { strategySchema, voiceModeSchema } from '../../wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `META`. The item also holds the inbox's counter `inbox_seq`, which is no part of the metadata. */
export const sessionMetaKey = (sessionId: string) => ({ pk: keys.session(sessionId), sk: keys.meta });

/** A session's metadata item. */
export const sessionMetaSchema = z.object({
  v: z.literal(1),
  session_id: z.string(),
  title: z.string(),
  agent_id: z.string(),
  project_id: z.string().optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
  created_by: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionMeta = z.infer<typeof sessionMetaSchema>;

/** Versions: 1 (every item so far). */
export const sessionMetaItem = storedItem<SessionMeta>('session meta', { 1: sessionMetaSchema });
