import { Hono } from 'hono';
import * as z from 'zod';
import { forbidden, notFound } from '@zero/agent/errors';
import { hookIdSchema, subscriptionDeliveriesSchema, subscriptionInputSchema, subscriptionListSchema, subscriptionResponseSchema } from '@zero/agent/wire';
import { describe, json, param, query } from '../declare';
import type { AppDeps, Env } from '../env';

// The subscriptions code is loaded with the first request that needs it, not at cold start.
const subscriptions = () => import('@zero/integrations/subscriptions');
const view = ({ v: _v, ...subscription }: { v: number } & Record<string, unknown>) => ({ subscription });

/** `/subscriptions/:id` (administrators): where Zero POSTs its signed events. */
export function subscriptionRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const idParam = param(z.object({ id: hookIdSchema }));
  const admin = async (c: { get(key: 'user'): { admin: boolean } }, next: () => Promise<void>) => {
    if (!c.get('user').admin) throw forbidden('managing subscriptions needs an administrator');
    await next();
  };
  app.use('/subscriptions', admin);
  app.use('/subscriptions/*', admin);

  app.get('/subscriptions', describe({ summary: 'Every subscription (administrators)', responses: { 200: subscriptionListSchema } }), async (c) => {
    const list = await (await subscriptions()).subscriptionStore(deps.subscriptions).list();
    return c.json({ subscriptions: list.map((s) => view(s).subscription) });
  });

  app.put('/subscriptions/:id', describe({ summary: 'Create or replace a subscription to signed events (administrators)', responses: { 200: subscriptionResponseSchema, 201: subscriptionResponseSchema } }), idParam, json(subscriptionInputSchema), async (c) => {
    const { subscription, created } = await (await subscriptions()).putSubscription(deps.subscriptions, c.req.valid('param').id, c.req.valid('json'));
    return c.json(view(subscription), created ? 201 : 200);
  });

  app.get('/subscriptions/:id', describe({ summary: 'A subscription (administrators)', responses: { 200: subscriptionResponseSchema } }), idParam, async (c) => {
    return c.json(view(await (await subscriptions()).subscriptionStore(deps.subscriptions).require(c.req.valid('param').id)));
  });

  app.get(
    '/subscriptions/:id/deliveries',
    describe({ summary: "A subscription's recent deliveries: status, attempts, last error (administrators)", responses: { 200: subscriptionDeliveriesSchema } }),
    idParam,
    query(z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) })),
    async (c) => {
      const { id } = c.req.valid('param');
      const { subscriptionStore } = await subscriptions();
      await subscriptionStore(deps.subscriptions).require(id);
      const records = await deps.subscriptions.outbox.list(id, c.req.valid('query').limit);
      const deliveries = records.map(({ message_id, type, status, attempts, created_at, updated_at, next_at, last_status, last_error }) => ({
        message_id,
        type,
        status,
        attempts,
        created_at,
        updated_at,
        ...(status === 'pending' ? { next_at } : {}),
        ...(last_status !== undefined ? { last_status } : {}),
        ...(last_error !== undefined ? { last_error } : {}),
      }));
      return c.json({ deliveries });
    },
  );

  app.delete('/subscriptions/:id', describe({ summary: 'Delete a subscription (administrators)', responses: { 204: null } }), idParam, async (c) => {
    const id = c.req.valid('param').id;
    if (!(await (await subscriptions()).subscriptionStore(deps.subscriptions).delete(id))) throw notFound(`no subscription "${id}"`, 'id');
    return c.body(null, 204);
  });
  return app;
}
