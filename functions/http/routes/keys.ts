import { Hono } from 'hono';
import * as z from 'zod';
import { ZeroError, userIdSchema } from '@zero/core';
import type { AppDeps, Env } from '../env';
import { jsonBody } from '../validate';

const createSchema = z.strictObject({
  user_id: userIdSchema.optional(),
  name: z.string().trim().min(1).max(200).optional(),
  label: z.string().trim().min(1).max(200).optional(),
});

/** API keys: a user manages their own; an administrator creates keys for anyone. */
export function keyRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post('/keys', async (c) => {
    const body = await jsonBody(c, createSchema);
    const me = c.get('user');
    const userId = body.user_id ?? me.id;
    if (userId !== me.id && !me.admin) throw new ZeroError('forbidden', 'only an administrator creates keys for other users', 403);
    const { key, info } = await deps.auth.keys.create({ id: userId, name: body.name ?? (userId === me.id ? me.name : undefined) }, body.label);
    return c.json({ key, ...info, note: 'This key is shown once. Store it now.' }, 201);
  });

  app.get('/keys', async (c) => c.json({ keys: await deps.auth.keys.list(c.get('user').id) }));

  app.delete('/keys/:key_id', async (c) => {
    const me = c.get('user');
    const userId = c.req.query('user_id') ?? me.id;
    if (userId !== me.id && !me.admin) throw new ZeroError('forbidden', "only an administrator revokes other users' keys", 403);
    await deps.auth.keys.revoke(userId, c.req.param('key_id'));
    return c.body(null, 204);
  });

  return app;
}
