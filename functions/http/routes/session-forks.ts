import { Hono } from 'hono';
import { forkSession } from '@zero/runtime/sessions/fork-session';
import { requireAccess } from '@zero/runtime/sessions/access';
import { forkSessionRequestSchema, sessionForksSchema, sessionResponseSchema } from '@zero/agent/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';

/** Forks of a session: make one at a history record, list those made (see docs/sessions-steering.md). */
export function sessionForkRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post(
    '/sessions/:id/fork',
    describe({ summary: 'Fork a session at a history record: a new session, the caller its owner, whose history is the original up to that record (read, not copied)', responses: { 201: sessionResponseSchema } }),
    json(forkSessionRequestSchema),
    async (c) => c.json({ session: await forkSession(deps, c.get('user'), c.req.param('id'), c.req.valid('json')) }, 201),
  );

  app.get('/sessions/:id/forks', describe({ summary: 'The forks made of a session, oldest first', responses: { 200: sessionForksSchema } }), async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    return c.json({ forks: await deps.sessions.listForks(id) });
  });

  return app;
}
