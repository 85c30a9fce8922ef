import { Hono } from 'hono';
import { rewindFiles } from '@zero/runtime/sessions/rewind-files';
import { filesRewoundSchema, rewindFilesRequestSchema } from '@zero/agent/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';

/** Rewinding the files a session wrote to a point of its history (see docs/sessions-steering.md). */
export function sessionRewindRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post(
    '/sessions/:id/rewind',
    describe({
      summary: "Rewind the session's written area to a history record: each file written after it gets its content at that point back, or is deleted (owners; editors for their own runs' writes)",
      responses: { 200: filesRewoundSchema },
    }),
    json(rewindFilesRequestSchema),
    async (c) => c.json(await rewindFiles(deps, c.get('user'), c.req.param('id'), c.req.valid('json').at_event)),
  );

  return app;
}
