import { Hono } from 'hono';
import { notFound } from '@zero/agent/errors';
import type { Env } from '../env';

/** Why MCP tunnels (`client.beta.tunnels`, + `certificates`) have no place in Zero. */
const TUNNELS =
  'MCP tunnels do not apply to Zero: it runs in your own AWS account (or on your machine with `npm start`), so an agent reaches a private MCP server over your own network, as the deployment\'s outbound rules allow; there is no tunnel to create';

/**
 * The parts of the Managed Agents API that do not apply to a self-hosted deployment: every method
 * answers a 404 (`not_found_error`) that says why, rather than the bare "no route".
 */
export function notApplicableRoutes() {
  const app = new Hono<Env>();
  for (const path of ['/tunnels', '/tunnels/*']) {
    app.all(path, () => {
      throw notFound(TUNNELS);
    });
  }
  return app;
}
