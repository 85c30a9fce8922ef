import { Hono } from 'hono';
import * as z from 'zod';
import { notFound } from '@zero/core';
import { ZERO_ENVIRONMENT_ID } from '@zero/core/managed';
import { json, query } from './validate';
import type { Env } from '../env';
import { pageOf, pageQuery } from './pages';

/** Zero's one environment: the deployment's own Lambda runtime, nothing to create or configure. */
export const zeroEnvironment = {
  type: 'environment' as const,
  id: ZERO_ENVIRONMENT_ID,
  name: 'Zero (AWS Lambda)',
  description: "The deployment's own runtime: runs go on in its Lambda functions, with its tools and permissions.",
  config: { type: 'self_hosted' as const },
  metadata: {},
  created_at: new Date(0).toISOString(),
  updated_at: new Date(0).toISOString(),
  archived_at: null,
};

export function environmentRoutes() {
  const app = new Hono<Env>();
  app.get('/environments', query(z.object(pageQuery)), (c) =>
    c.json(pageOf([zeroEnvironment], c.req.valid('query'))),
  );
  app.get('/environments/:id', (c) => {
    if (c.req.param('id') !== ZERO_ENVIRONMENT_ID) throw notFound(`no environment "${c.req.param('id')}"; Zero has one, "${ZERO_ENVIRONMENT_ID}"`, 'environment_id');
    return c.json(zeroEnvironment);
  });
  return app;
}
