import { Hono } from 'hono';
import { invalidField, notFound } from '@zero/agent/errors';
import { PathError, normalizeProjectPath } from '@zero/runtime/projects/paths';
import { contentTypeOf } from '@zero/runtime/projects/project-store';
import { requireAccess } from '@zero/runtime/sessions/access';
import { describe } from '../declare';
import type { AppDeps, Env } from '../env';

/** `GET /sessions/:id/artifacts/<path>`: a file the session's runs wrote under `artifacts/`, for its members only. */
export function sessionArtifactRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.get(
    '/sessions/:id/artifacts/*',
    describe({ summary: "Read a file of the session's artifacts (its members)", responses: { 200: null, 404: null }, raw: 'application/octet-stream' }),
    async (c) => {
      const id = c.req.param('id');
      await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
      const path = artifactPath(new URL(c.req.url).pathname, `/sessions/${id}/artifacts/`);
      const bytes = await deps.artifacts.getBytes(`sessions/${id}/artifacts/${path}`);
      if (!bytes) throw notFound(`no artifact "${path}" in session "${id}"`, 'path');
      return new Response(new Uint8Array(bytes), { headers: { 'content-type': contentTypeOf(path), 'content-length': String(bytes.byteLength), 'x-content-type-options': 'nosniff' } });
    },
  );
  return app;
}

/** The artifact's path from the request's (encoded) path, checked as every project path is. */
function artifactPath(pathname: string, marker: string): string {
  const at = pathname.indexOf(marker);
  let path: string;
  try {
    path = decodeURIComponent(at >= 0 ? pathname.slice(at + marker.length) : '');
  } catch {
    throw invalidField('path', 'is not valid percent-encoding');
  }
  try {
    return normalizeProjectPath(path);
  } catch (error) {
    if (PathError.isInstance(error)) throw invalidField('path', error.message);
    throw error;
  }
}
