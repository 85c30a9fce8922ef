import { Hono } from 'hono';
import * as z from 'zod';
import { healthResponseSchema } from '@zero/agent/wire';
import { requireUser } from './auth';
import { deadline } from './deadline';
import { requestLog } from './request-log';
import { traceRequests } from './trace-request';
import { describe } from './declare';
import { lazyRoutes, lazyRouteTable } from './lazy-routes';
import type { AppDeps, Env } from './env';
import { errorResponse } from './errors';
import { agentRoutes } from './routes/agents';
import { chatRoutes } from './routes/chat';
import { sessionRoutes, type SessionRouteOptions } from './routes/sessions';
import { uiChatRoutes } from './routes/ui-chat';
import { webhookEndpoint } from './routes/webhooks';
import type { ProjectApiLimits } from './projects';

export type { AppDeps };
export { FIRST_FLUSH_PADDING } from './sse';

export interface AppOptions extends SessionRouteOptions {
  /** The project API's limits, the defaults where unset (tests lower them). */
  projectLimits?: Partial<ProjectApiLimits>;
}

/** The one Hono app served by Lambda (`streamHandle`) and by Node (`@hono/node-server`). */
export function createApp(deps: AppDeps, options: AppOptions = {}) {
  const app = new Hono<Env>();
  app.onError((error, c) => errorResponse(error, c, deps.secrets));
  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } }, 404));

  app.use('*', traceRequests());
  app.use('*', requestLog());
  app.use('*', deadline());

  app.get('/health', describe({ summary: 'Liveness', responses: { 200: healthResponseSchema }, public: true }), (c) => c.json({ ok: true as const }));

  // Read off the routes once, when first asked for (the lazy groups' loaded then): nothing at cold start, not even the code that reads them.
  let document: Promise<unknown> | undefined;
  app.get('/api/v2/openapi.json', describe({ summary: 'This document: the HTTP API as OpenAPI 3.1', responses: { 200: z.looseObject({ openapi: z.string() }) }, public: true }), async (c) =>
    c.json(await (document ??= Promise.all([import('./openapi'), lazyRouteTable(app)]).then(([{ openApiDocument }, routes]) => openApiDocument({ routes }, { title: 'Zero', version: '2' })))),
  );

  // Registered before the API's bearer auth: a delivery is authenticated by its hook's HMAC signature.
  app.route('/api/v2', webhookEndpoint(deps));
  // Zero as an MCP server, beside the API, with the API's bearer credentials.
  app.route('/', lazyRoutes(['/mcp'], () => import('./routes/mcp').then((m) => m.mcpRoutes(deps))));

  const api = new Hono<Env>();
  // Every door admits its caller the same way: credential, suspension, requests per credential and window
  // (ZERO_RATE_LIMIT_PER_MINUTE, counted in DynamoDB across instances and doors; none by default).
  api.use('*', requireUser(deps));
  api.route('/', chatRoutes(deps));
  api.route('/', uiChatRoutes(deps));
  api.route('/', sessionRoutes(deps, options));
  api.route('/', agentRoutes(deps));
  // Rarely asked for: each group's module is imported with its first request (lazy-routes.ts,
  // docs/architecture.md), so a cold start does not load it. Its paths must cover its routes.
  api.route('/', lazyRoutes(['/sessions/:id/attachments/*'], () => import('./routes/attachments').then((m) => m.attachmentRoutes(deps))));
  api.route('/', lazyRoutes(['/sessions/:id/fork', '/sessions/:id/forks'], () => import('./routes/session-forks').then((m) => m.sessionForkRoutes(deps))));
  api.route('/', lazyRoutes(['/sessions/:id/rewind'], () => import('./routes/session-rewind').then((m) => m.sessionRewindRoutes(deps))));
  api.route('/', lazyRoutes(['/sessions/:id/artifacts/*'], () => import('./routes/session-artifacts').then((m) => m.sessionArtifactRoutes(deps))));
  api.route('/', lazyRoutes(['/sessions/:id/messages/:seq/edit', '/sessions/:id/regenerate'], () => import('./routes/session-edits').then((m) => m.sessionEditRoutes(deps))));
  api.route('/', lazyRoutes(['/sessions/:id/permissions'], () => import('./routes/permissions').then((m) => m.permissionRoutes(deps))));
  api.route('/', lazyRoutes(['/sessions/:id/approvals/*', '/sessions/:id/tool-results/*'], () => import('./routes/approvals').then((m) => m.approvalRoutes(deps))));
  api.route('/', lazyRoutes(['/keys', '/keys/*', '/me'], () => import('./routes/keys').then((m) => m.keyRoutes(deps))));
  api.route('/', lazyRoutes(['/hooks', '/hooks/*', '/sessions/:id/summary'], () => import('./routes/webhooks').then((m) => m.hookRoutes(deps))));
  api.route('/', lazyRoutes(['/subscriptions', '/subscriptions/*'], () => import('./routes/subscriptions').then((m) => m.subscriptionRoutes(deps))));
  api.route('/', lazyRoutes(['/schedules', '/schedules/*'], () => import('./routes/schedules').then((m) => m.scheduleRoutes(deps))));
  api.route('/', lazyRoutes(['/evals/*'], () => import('./routes/evals').then((m) => m.evalRoutes(deps))));
  api.route('/', lazyRoutes(['/projects', '/projects/*'], () => import('./projects').then((m) => m.projectRoutes(deps, { ...m.DEFAULT_PROJECT_API_LIMITS, ...options.projectLimits }))));
  api.route('/', lazyRoutes(['/memories/*'], () => import('./memories').then((m) => m.memoryRoutes(deps))));
  api.route('/', lazyRoutes(['/mcp-servers', '/mcp-servers/*'], () => import('./routes/mcp-servers').then((m) => m.mcpServerRoutes(deps))));
  api.route('/', lazyRoutes(['/environments', '/environments/*'], () => import('./routes/environments').then((m) => m.environmentApiRoutes(deps))));
  if (deps.budgets) {
    api.route('/', lazyRoutes(['/sessions/:id/budget', '/admin/budgets/*'], () => import('./routes/budgets').then((m) => m.budgetRoutes(deps))));
    api.route('/', lazyRoutes(['/admin/runs', '/admin/runs/*', '/admin/users/*', '/admin/audit'], () => import('./routes/admin').then((m) => m.adminRoutes(deps))));
    api.route('/', lazyRoutes(['/usage'], () => import('./routes/usage').then((m) => m.usageRoutes(deps))));
  }

  app.route('/api/v2', api);
  // Anthropic's Managed Agents API, for the official SDK (its own credentials header and error shape),
  // loaded with its first request to keep the cold start small. Anthropic documents it, so it is
  // not in this OpenAPI document (a catch-all is no route of the document).
  app.all('/v1/*', async (c) => (await import('./v1')).serveManagedAgentsApi(deps, c));
  return app;
}
