import * as z from 'zod';
import { permissionMapSchema } from '@zero/agent/wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `PERMISSIONS`. */
export const sessionPermissionsKey = (sessionId: string) => ({ pk: keys.session(sessionId), sk: keys.permissions });

/** A session's permission overrides, set by an owner: a layer of its tool calls' policy that may only tighten the others. */
export const sessionPermissionsItemSchema = z.object({
  v: z.literal(1),
  session_id: z.string(),
  permissions: permissionMapSchema,
  updated_by: z.string(),
  updated_at: z.string(),
});
export type SessionPermissions = z.infer<typeof sessionPermissionsItemSchema>;

/** Versions: 1 (every item so far). */
export const sessionPermissionsItem = storedItem<SessionPermissions>('session permissions', { 1: sessionPermissionsItemSchema });
