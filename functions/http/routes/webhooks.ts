import { Hono } from 'hono';
import * as z from 'zod';
import { forbidden, invalidField, notFound } from '@zero/agent/errors';
import { refusedCallbackUrl } from '@zero/integrations/webhooks/callback';
import { requireAccess } from '@zero/runtime/sessions/access';
import { requireAgent } from '@zero/agent/definitions/catalog';
import type { HookConfig } from '@zero/integrations/webhooks/hook-config';
import { MAX_WEBHOOK_BYTES, deliveryResponseSchema, hookIdSchema, hookInputSchema, hookListSchema, hookResponseSchema, sessionSummaryResponseSchema } from '@zero/agent/wire';
import { body, describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * `POST /webhooks/:hook_id`: a delivery from GitHub or a generic sender. It
 * carries no bearer credential: the hook's HMAC signature authenticates it.
 * Answers 202 `{session_id, run_id}` as soon as the message is stored and
 * the run job sent; the investigation runs in the worker.
 */
export function webhookEndpoint(deps: AppDeps) {
  const app = new Hono<Env & { Variables: { hook: HookConfig } }>();
  app.post(
    '/webhooks/:hook_id',
    describe({ summary: "A webhook delivery, authenticated by its hook's HMAC signature", responses: { 200: deliveryResponseSchema, 202: deliveryResponseSchema }, public: true }),
    // An unknown hook is a 404 before its body is read.
    async (c, next) => {
      const hook = await deps.webhooks.hooks.require(c.req.param('hook_id'));
      // Deliveries per hook and window, across instances (ZERO_RATE_LIMIT_HOOK_PER_MINUTE).
      await (await deps.rateLimits?.())?.take('hook', hook.id);
      c.set('hook', hook);
      await next();
    },
    body('application/json', MAX_WEBHOOK_BYTES),
    async (c) => {
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const { acceptDelivery } = await investigations();
      const outcome = await acceptDelivery(deps, c.get('hook'), { body: raw, header: (name) => c.req.header(name) });
      if (outcome.status === 'ignored') return c.json({ ignored: true, event: outcome.event }, 202);
      if (outcome.status === 'duplicate') return c.json({ duplicate: true, session_id: outcome.session_id, run_id: outcome.run_id }, 200);
      return c.json({ session_id: outcome.session_id, run_id: outcome.run_id }, 202);
    },
  );
  return app;
}

// Accepting a delivery and settling an investigation are loaded with the first webhook request:
// a cold start serving members does not evaluate them.
const investigations = () => import('@zero/integrations/webhooks');

const hookView = (hook: HookConfig) => ({ ...hook, url: `/api/v2/webhooks/${hook.id}` });

/** Hook management (administrators only) and a session's summary; behind the API's bearer auth. */
export function hookRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const admin = (c: { get(key: 'user'): { admin: boolean } }) => {
    if (!c.get('user').admin) throw forbidden('managing webhooks needs an administrator');
  };

  app.put('/hooks/:hook_id', describe({ summary: 'Create or replace a webhook (administrators)', responses: { 200: hookResponseSchema, 201: hookResponseSchema } }), param(z.object({ hook_id: hookIdSchema })), json(hookInputSchema), async (c) => {
    admin(c);
    const id = c.req.valid('param').hook_id;
    const input = c.req.valid('json');
    await requireAgent(deps.catalog, input.agent_id);
    if (!deps.webhooks.secret(input.secret_ref)) {
      throw invalidField('secret_ref', `${input.secret_ref} is not set in the server's environment`);
    }
    if (input.hydrate || input.report || input.github_token_ref) (await import('@zero/integrations/github')).checkGitHubHook(deps.github, input);
    const refused = input.callback_url ? await refusedCallbackUrl(input.callback_url, deps.webhooks.callback.allow) : undefined;
    if (refused) throw invalidField('callback_url', refused);
    const { hook, created } = await deps.webhooks.hooks.put(id, input);
    return c.json({ hook: hookView(hook) }, created ? 201 : 200);
  });

  app.get('/hooks', describe({ summary: 'The webhooks (administrators)', responses: { 200: hookListSchema } }), async (c) => {
    admin(c);
    return c.json({ hooks: (await deps.webhooks.hooks.list()).map(hookView) });
  });

  app.get('/hooks/:hook_id', describe({ summary: 'A webhook (administrators)', responses: { 200: hookResponseSchema } }), async (c) => {
    admin(c);
    return c.json({ hook: hookView(await deps.webhooks.hooks.require(c.req.param('hook_id'))) });
  });

  app.delete('/hooks/:hook_id', describe({ summary: 'Delete a webhook (administrators)', responses: { 204: null } }), async (c) => {
    admin(c);
    if (!(await deps.webhooks.hooks.delete(c.req.param('hook_id')))) {
      throw notFound(`no webhook "${c.req.param('hook_id')}"`, 'hook_id');
    }
    return c.body(null, 204);
  });

  app.get('/sessions/:id/summary', describe({ summary: 'What became of a webhook-started investigation', responses: { 200: sessionSummaryResponseSchema } }), async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    let summary = await deps.webhooks.store.getSummary(id);
    if (summary?.status === 'accepted') {
      // A run that ended in a process that died before finishing the investigation is finished now.
      await (await investigations()).settleInvestigation(deps, id);
      summary = await deps.webhooks.store.getSummary(id);
    }
    if (!summary) throw notFound('this session has no summary: only sessions a webhook started have one');
    return c.json({ summary });
  });

  return app;
}
