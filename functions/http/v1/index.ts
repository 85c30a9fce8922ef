import { Hono, type Context } from 'hono';
import { notFound } from '@zero/agent/errors';
import { managedAgentStore } from '@zero/integrations/managed';
import type { AppDeps, Env } from '../env';
import type { V1Deps } from './deps';
import { agentRoutes } from './agents';
import { apiErrorResponse } from './api-errors';
import { requireApiKey } from './auth';
import { environmentRoutes } from './environments';
import { fileRoutes } from './files';
import { sessionResourceRoutes } from './session-resources';
import { managedEventRoutes } from './events';
import { workRoutes } from './work';
import { managedSessionRoutes } from './sessions';
import { skillRoutes } from './skills';
import { notApplicableRoutes } from './not-applicable';
import { vaultRoutes } from './vaults';
import { memoryStoreRoutes } from './memory-stores';
import { deploymentRoutes } from './deployments';
import { deploymentRunRoutes } from './deployment-runs';
import { userProfileRoutes } from './user-profiles';
import { dreamRoutes } from './dreams';
import { sessionThreadRoutes } from './session-threads';

/**
 * Anthropic's Managed Agents API (`/v1/agents`, `/v1/sessions`, `/v1/environments`), so the official
 * SDK (`client.beta.agents`, `client.beta.sessions`) is a client of Zero: a second door onto the
 * same agents and sessions as `/api/v2`, mapped at the edge.
 */
export function managedAgentsApi(runtime: AppDeps) {
  const deps: V1Deps = { ...runtime, managedAgents: managedAgentStore(runtime.artifacts.s3, runtime.artifacts.bucket) };
  const app = new Hono<Env>().basePath('/v1');
  app.onError((error, c) => apiErrorResponse(error, c, deps.secrets));
  app.notFound((c) => apiErrorResponse(notFound(`no route for ${c.req.method} ${c.req.path}`), c));
  app.use('*', requireApiKey(deps));
  app.route('/', agentRoutes(deps));
  app.route('/', environmentRoutes(deps));
  app.route('/', workRoutes(deps));
  app.route('/', managedSessionRoutes(deps));
  app.route('/', managedEventRoutes(deps));
  app.route('/', skillRoutes(deps));
  app.route('/', fileRoutes(deps));
  app.route('/', sessionResourceRoutes(deps));
  app.route('/', notApplicableRoutes());
  app.route('/', vaultRoutes(deps));
  app.route('/', memoryStoreRoutes(deps));
  app.route('/', deploymentRoutes(deps));
  app.route('/', deploymentRunRoutes(deps));
  app.route('/', userProfileRoutes(deps));
  app.route('/', dreamRoutes(deps));
  app.route('/', sessionThreadRoutes(deps));
  return app;
}

const apps = new WeakMap<AppDeps, Hono<Env>>();

/** Answers a `/v1` request with the runtime's Managed Agents API (made on its first request). */
export function serveManagedAgentsApi(runtime: AppDeps, c: Context<Env>) {
  let app = apps.get(runtime);
  if (!app) apps.set(runtime, (app = managedAgentsApi(runtime)));
  return app.fetch(c.req.raw, c.env);
}
