import { Hono } from 'hono';
import * as z from 'zod';
import { healthResponseSchema } from '@zero/agent/wire';
import { requireUser } from './auth';
import { deadline } from './deadline';
import { requestLog } from './request-log';
import { traceRequests } from './trace-request';
import { describe } from './declare';
import type { AppDeps, Env } from './env';
import { errorResponse } from './errors';
import { agentRoutes } from './routes/agents';
import { mcpServerRoutes } from './routes/mcp-servers';
import { environmentApiRoutes } from './routes/environments';
import { chatRoutes } from './routes/chat';
import { attachmentRoutes } from './routes/attachments';
import { keyRoutes } from './routes/keys';
import { budgetRoutes } from './routes/budgets';
import { adminRoutes } from './routes/admin';
import { usageRoutes } from './routes/usage';
import { mcpRoutes } from './routes/mcp';
import { permissionRoutes } from './routes/permissions';
import { approvalRoutes } from './routes/approvals';
import { sessionRoutes, type SessionRouteOptions } from './routes/sessions';
import { sessionForkRoutes } from './routes/session-forks';
import { sessionRewindRoutes } from './routes/session-rewind';
import { sessionArtifactRoutes } from './routes/session-artifacts';
import { sessionEditRoutes } from './routes/session-edits';
import { uiChatRoutes } from './routes/ui-chat';
import { hookRoutes, webhookEndpoint } from './routes/webhooks';
import { scheduleRoutes } from './routes/schedules';
import { evalRoutes } from './routes/evals';
import { subscriptionRoutes } from './routes/subscriptions';
import { DEFAULT_PROJECT_API_LIMITS, projectRoutes, type ProjectApiLimits } from './projects';
import { memoryRoutes } from './memories';

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

  // Read off the routes once, when first asked for: nothing at cold start, not even the code that reads them.
  let document: Promise<unknown> | undefined;
  app.get('/api/v2/openapi.json', describe({ summary: 'This document: the HTTP API as OpenAPI 3.1', responses: { 200: z.looseObject({ openapi: z.string() }) }, public: true }), async (c) =>
    c.json(await (document ??= import('./openapi').then(({ openApiDocument }) => openApiDocument(app, { title: 'Zero', version: '2' })))),
  );

  // Registered before the API's bearer auth: a delivery is authenticated by its hook's HMAC signature.
  app.route('/api/v2', webhookEndpoint(deps));
  // Zero as an MCP server, beside the API, with the API's bearer credentials.
  app.route('/', mcpRoutes(deps));

  const api = new Hono<Env>();
  // Every door admits its caller the same way: credential, suspension, requests per credential and window
  // (ZERO_RATE_LIMIT_PER_MINUTE, counted in DynamoDB across instances and doors; none by default).
  api.use('*', requireUser(deps));
  api.route('/', chatRoutes(deps));
  api.route('/', uiChatRoutes(deps));
  api.route('/', sessionRoutes(deps, options));
  api.route('/', attachmentRoutes(deps));
  api.route('/', sessionForkRoutes(deps));
  api.route('/', sessionRewindRoutes(deps));
  api.route('/', sessionArtifactRoutes(deps));
  api.route('/', sessionEditRoutes(deps));
  api.route('/', permissionRoutes(deps));
  api.route('/', approvalRoutes(deps));
  api.route('/', keyRoutes(deps));
  api.route('/', hookRoutes(deps));
  api.route('/', subscriptionRoutes(deps));
  api.route('/', scheduleRoutes(deps));
  api.route('/', evalRoutes(deps));
  api.route('/', projectRoutes(deps, { ...DEFAULT_PROJECT_API_LIMITS, ...options.projectLimits }));
  api.route('/', memoryRoutes(deps));
  api.route('/', agentRoutes(deps));
  api.route('/', mcpServerRoutes(deps));
  api.route('/', environmentApiRoutes(deps));
  if (deps.budgets) api.route('/', budgetRoutes(deps));
  if (deps.budgets) api.route('/', adminRoutes(deps));
  if (deps.budgets) api.route('/', usageRoutes(deps));

  app.route('/api/v2', api);
  // Anthropic's Managed Agents API, for the official SDK (its own credentials header and error shape),
  // loaded with its first request to keep the cold start small. Anthropic documents it, so it is
  // not in this OpenAPI document (a catch-all is no route of the document).
  app.all('/v1/*', async (c) => (await import('./v1')).serveManagedAgentsApi(deps, c));
  return app;
}
