import { Hono } from 'hono';
import * as z from 'zod';
import { forbidden, userIdSchema, type AuthUser } from '@zero/core';
import type { AppDeps, Env } from '../env';
import { jsonBody, param, query } from '../validate';

const createSchema = z.strictObject({
  user_id: userIdSchema.optional(),
  name: z.string().trim().min(1).max(200).optional(),
  label: z.string().trim().min(1).max(200).optional(),
});
const whoseSchema = z.object({ user_id: userIdSchema.optional() });
/** As `ApiKeyStore.create` makes them: 12 hex digits. */
const keyIdSchema = z.string().regex(/^[0-9a-f]{12}$/, 'must be a key id as POST /keys returned it (12 hex digits)');

/** The user whose keys a request is about: the caller's own, or (for an administrator) anyone's. */
function whoseKeys(me: AuthUser, userId: string | undefined, action: string): string {
  const whose = userId ?? me.id;
  if (whose !== me.id && !me.admin) throw forbidden(`only an administrator ${action} other users' keys`, 'user_id');
  return whose;
}

/** API keys: a user manages their own; an administrator manages anyone's. */
export function keyRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post('/keys', async (c) => {
    const body = await jsonBody(c, createSchema);
    const me = c.get('user');
    const userId = whoseKeys(me, body.user_id, 'creates');
    const { key, info } = await deps.auth.keys.create({ id: userId, name: body.name ?? (userId === me.id ? me.name : undefined) }, body.label);
    return c.json({ key, ...info, note: 'This key is shown once. Store it now.' }, 201);
  });

  app.get('/keys', async (c) => {
    const userId = whoseKeys(c.get('user'), query(c, whoseSchema).user_id, 'lists');
    return c.json({ keys: await deps.auth.keys.list(userId) });
  });

  app.delete('/keys/:key_id', async (c) => {
    const keyId = param(c, 'key_id', keyIdSchema);
    const userId = whoseKeys(c.get('user'), query(c, whoseSchema).user_id, 'revokes');
    await deps.auth.keys.revoke(userId, keyId);
    return c.body(null, 204);
  });

  return app;
}
