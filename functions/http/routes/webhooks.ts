import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  MAX_WEBHOOK_BYTES,
  acceptDelivery,
  forbidden,
  hookIdSchema,
  hookInputSchema,
  invalidField,
  notFound,
  refusedCallbackUrl,
  requireAccess,
  requireAgent,
  settleInvestigation,
  tooLarge,
  type HookConfig,
} from '@zero/core';
import type { AppDeps, Env } from '../env';
import { jsonBody } from '../validate';

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
    // An unknown hook is a 404 before its body is read.
    async (c, next) => {
      c.set('hook', await deps.webhooks.hooks.require(c.req.param('hook_id')));
      await next();
    },
    bodyLimit({
      maxSize: MAX_WEBHOOK_BYTES,
      onError: () => {
        throw tooLarge(`webhook body over ${MAX_WEBHOOK_BYTES} bytes`);
      },
    }),
    async (c) => {
      const body = new Uint8Array(await c.req.arrayBuffer());
      const outcome = await acceptDelivery(deps, c.get('hook'), { body, header: (name) => c.req.header(name) });
      if (outcome.status === 'ignored') return c.json({ ignored: true, event: outcome.event }, 202);
      if (outcome.status === 'duplicate') return c.json({ duplicate: true, session_id: outcome.session_id, run_id: outcome.run_id }, 200);
      return c.json({ session_id: outcome.session_id, run_id: outcome.run_id }, 202);
    },
  );
  return app;
}

const describe = (hook: HookConfig) => ({ ...hook, url: `/api/v2/webhooks/${hook.id}` });

/** Hook management (administrators only) and a session's summary; behind the API's bearer auth. */
export function hookRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const admin = (c: { get(key: 'user'): { admin: boolean } }) => {
    if (!c.get('user').admin) throw forbidden('managing webhooks needs an administrator');
  };
  const hookId = (id: string) => {
    const parsed = hookIdSchema.safeParse(id);
    if (!parsed.success) throw invalidField('hook_id', parsed.error.issues[0]?.message ?? 'invalid');
    return parsed.data;
  };

  app.put('/hooks/:hook_id', async (c) => {
    admin(c);
    const id = hookId(c.req.param('hook_id'));
    const input = await jsonBody(c, hookInputSchema);
    await requireAgent(deps.catalog, input.agent_id);
    if (!deps.webhooks.secret(input.secret_ref)) {
      throw invalidField('secret_ref', `${input.secret_ref} is not set in the server's environment`);
    }
    const refused = input.callback_url ? await refusedCallbackUrl(input.callback_url) : undefined;
    if (refused) throw invalidField('callback_url', refused);
    const { hook, created } = await deps.webhooks.hooks.put(id, input);
    return c.json({ hook: describe(hook) }, created ? 201 : 200);
  });

  app.get('/hooks', async (c) => {
    admin(c);
    return c.json({ hooks: (await deps.webhooks.hooks.list()).map(describe) });
  });

  app.get('/hooks/:hook_id', async (c) => {
    admin(c);
    return c.json({ hook: describe(await deps.webhooks.hooks.require(c.req.param('hook_id'))) });
  });

  app.delete('/hooks/:hook_id', async (c) => {
    admin(c);
    if (!(await deps.webhooks.hooks.delete(c.req.param('hook_id')))) {
      throw notFound(`no webhook "${c.req.param('hook_id')}"`, 'hook_id');
    }
    return c.body(null, 204);
  });

  app.get('/sessions/:id/summary', async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    let summary = await deps.webhooks.store.getSummary(id);
    if (summary?.status === 'accepted') {
      // A run that ended in a process that died before finishing the investigation is finished now.
      await settleInvestigation(deps, id);
      summary = await deps.webhooks.store.getSummary(id);
    }
    if (!summary) throw notFound('this session has no summary: only sessions a webhook started have one');
    return c.json({ summary });
  });

  return app;
}
