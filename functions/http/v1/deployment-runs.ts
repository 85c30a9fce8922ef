import { Hono } from 'hono';
import * as z from 'zod';
import { deploymentRunResource } from '@zero/integrations/managed/deployment-resource';
import { DeploymentStore } from '@zero/integrations/managed/deployment-store';
import { query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';

const instant = z.iso.datetime({ offset: true }).transform((at) => Date.parse(at));

const listQuery = z.object({
  ...pageQuery,
  deployment_id: z.string().max(200).optional(),
  has_error: queryBoolean.optional(),
  trigger_type: z.enum(['schedule', 'manual']).optional(),
  'created_at[gt]': instant.optional(),
  'created_at[gte]': instant.optional(),
  'created_at[lt]': instant.optional(),
  'created_at[lte]': instant.optional(),
});

/**
 * `/v1/deployment_runs` (`client.beta.deploymentRuns`): each firing of the caller's deployments, newest
 * first, with the session it started or why it started none. Runs are kept as long as their deployment.
 */
export function deploymentRunRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const store = new DeploymentStore(deps.artifacts);

  app.get('/deployment_runs/:id', async (c) => c.json(deploymentRunResource(await store.reachRun(c.get('user').id, c.req.param('id')))));

  app.get('/deployment_runs', query(listQuery), async (c) => {
    const q = c.req.valid('query');
    const owner = c.get('user').id;
    // A deployment that is not the caller's (or none) has no runs here: 200 and an empty page, as the API's.
    const runs = q.deployment_id ? await store.runsOf(owner, q.deployment_id) : (await store.listAll(owner)).runs;
    const shown = runs.filter((run) => {
      const at = Date.parse(run.created_at);
      return (
        (q.has_error === undefined || (run.error !== null) === q.has_error) &&
        (!q.trigger_type || run.trigger.type === q.trigger_type) &&
        (q['created_at[gt]'] === undefined || at > q['created_at[gt]']) &&
        (q['created_at[gte]'] === undefined || at >= q['created_at[gte]']) &&
        (q['created_at[lt]'] === undefined || at < q['created_at[lt]']) &&
        (q['created_at[lte]'] === undefined || at <= q['created_at[lte]'])
      );
    });
    const page = pageOf(shown, q);
    return c.json({ data: page.data.map(deploymentRunResource), next_page: page.next_page });
  });

  return app;
}
