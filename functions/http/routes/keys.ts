import { Hono } from 'hono';
import * as z from 'zod';
import { forbidden } from '@zero/agent/errors';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { createKeyRequestSchema, createdKeySchema, keyIdSchema, keyListSchema, keysQuerySchema, meResponseSchema } from '@zero/agent/wire';
import { describe, json, param, query } from '../declare';
import type { AppDeps, Env } from '../env';

/** The user whose keys a request is about: the caller's own, or (for an administrator) anyone's. */
function whoseKeys(me: AuthUser, userId: string | undefined, action: string): string {
  const whose = userId ?? me.id;
  if (whose !== me.id && !me.admin) throw forbidden(`only an administrator ${action} other users' keys`, 'user_id');
  return whose;
}

/** API keys: a user manages their own; an administrator manages anyone's. */
export function keyRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post('/keys', describe({ summary: 'Create an API key (shown once)', responses: { 201: createdKeySchema } }), json(createKeyRequestSchema), async (c) => {
    const body = c.req.valid('json');
    const me = c.get('user');
    const userId = whoseKeys(me, body.user_id, 'creates');
    const { key, info } = await deps.auth.keys.create({ id: userId, name: body.name ?? (userId === me.id ? me.name : undefined) }, body.label);
    return c.json({ key, ...info, note: 'This key is shown once. Store it now.' }, 201);
  });

  app.get('/keys', describe({ summary: "List one's API keys (administrators: anyone's)", responses: { 200: keyListSchema } }), query(keysQuerySchema), async (c) => {
    const userId = whoseKeys(c.get('user'), c.req.valid('query').user_id, 'lists');
    return c.json({ keys: await deps.auth.keys.list(userId) });
  });

  app.delete('/keys/:key_id', describe({ summary: 'Revoke an API key', responses: { 204: null } }), param(z.object({ key_id: keyIdSchema })), query(keysQuerySchema), async (c) => {
    const keyId = c.req.valid('param').key_id;
    const userId = whoseKeys(c.get('user'), c.req.valid('query').user_id, 'revokes');
    await deps.auth.keys.revoke(userId, keyId);
    return c.body(null, 204);
  });

  app.get('/me', describe({ summary: 'Who the credentials are (the console shows it beside sign-out)', responses: { 200: meResponseSchema } }), (c) => {
    const { id, name, admin, via } = c.get('user');
    return c.json({ user: { id, ...(name ? { name } : {}), admin, via } });
  });

  return app;
}
