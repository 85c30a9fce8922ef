import { Hono } from 'hono';
import * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import { requireAccess } from '@zero/runtime/sessions/access';
import { BlobStore } from '@zero/runtime/files/blob-store';
import { sessionHolds } from '@zero/runtime/files/attachments';
import { sniffMediaType } from '@zero/agent/wire';
import { describe, param } from '../declare';
import type { AppDeps, Env } from '../env';

const attachmentParams = z.object({ id: z.string().min(1).max(200), sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be the attachment\'s sha256 (64 hex digits)') });

/** `GET /sessions/:id/attachments/:sha256`: an image or PDF sent in the session's messages, for its members only. */
export function attachmentRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.get(
    '/sessions/:id/attachments/:sha256',
    describe({ summary: "An attachment of the session's messages (its members)", responses: { 200: null, 404: null }, raw: 'application/octet-stream' }),
    param(attachmentParams),
    async (c) => {
      const { id, sha256 } = c.req.valid('param');
      await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
      // Only what the session's own messages hold: a member of one session reads nothing of another's by its hash.
      const bytes = (await sessionHolds(deps.artifacts, id, sha256)) ? await new BlobStore(deps.artifacts).read(sha256) : undefined;
      if (!bytes) throw notFound(`no attachment ${sha256} in session "${id}"`, 'sha256');
      return new Response(new Uint8Array(bytes), { headers: { 'content-type': sniffMediaType(bytes) ?? 'application/octet-stream', 'content-length': String(bytes.byteLength), 'x-content-type-options': 'nosniff', 'cache-control': 'private, max-age=31536000, immutable' } });
    },
  );
  return app;
}
