import { Hono } from 'hono';
import * as z from 'zod';
import { invalidField, tooLarge } from '@zero/agent/errors';
import { FileStore, MAX_FILE_BYTES, type FileRecord } from '@zero/runtime/files/file-store';
import { query } from './validate';
import { sizeGuard } from '../declare';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery } from './pages';

/** A file as the API shows it (`BetaFileMetadata`). */
export const fileMetadata = (record: FileRecord) => ({
  type: 'file' as const,
  id: record.id,
  created_at: record.created_at,
  filename: record.filename,
  mime_type: record.mime_type,
  size_bytes: record.size_bytes,
  downloadable: true,
  expires_at: record.expires_at,
  scope: null,
});

/** `expires_in_seconds` of an upload: an hour to thirty days, as Anthropic's API. */
const expiresIn = z.coerce.number().int().min(3600).max(30 * 86_400);
/** A file name: printable, no path, at most 255 characters. */
const fileName = z.string().min(1).max(255).regex(/^[^\u0000-\u001f/\\]+$/, 'must be a file name without "/", "\\" or control characters');
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * `/v1/files` (`client.beta.files`): upload, list, metadata, download, delete. Each file is its
 * uploader's: another user gets a 404 as for a file that does not exist; administrators reach every
 * file. Uploads are at most `MAX_FILE_BYTES` (32 MiB); on Lambda a request body is at most 6 MB.
 */
export function fileRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const files = new FileStore(deps.artifacts);

  app.post('/files', sizeGuard(MAX_FILE_BYTES + MULTIPART_OVERHEAD, ` (a file is at most ${MAX_FILE_BYTES} bytes, 32 MiB)`), async (c) => {
    if (!c.req.header('content-type')?.startsWith('multipart/form-data')) throw invalidField('file', 'send the file as multipart/form-data, in a field "file"');
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch {
      throw invalidField('file', 'the multipart body could not be read');
    }
    const file = form.get('file');
    if (!(file instanceof File)) throw invalidField('file', 'is required: a file part named "file"');
    if (file.size > MAX_FILE_BYTES) throw tooLarge(`file is ${file.size} bytes; a file is at most ${MAX_FILE_BYTES} bytes (32 MiB)`, 'file');
    const name = fileName.safeParse(file.name || 'upload');
    if (!name.success) throw invalidField('file.filename', name.error.issues[0]!.message);
    const expires = form.get('expires_in_seconds');
    const seconds = expires === null ? undefined : expiresIn.safeParse(expires);
    if (seconds && !seconds.success) throw invalidField('expires_in_seconds', 'must be a whole number of seconds from 3600 to 2592000');
    const mimeType = /^[\w.+-]+\/[\w.+-]+$/.test(file.type) ? file.type : 'application/octet-stream';
    const record = await files.upload(c.get('user').id, { filename: name.data, mimeType, bytes: new Uint8Array(await file.arrayBuffer()), ...(seconds ? { expiresInSeconds: seconds.data } : {}) });
    return c.json(fileMetadata(record));
  });

  app.get('/files', query(z.object({ ...pageQuery, scope_id: z.string().max(200).optional() })), async (c) => {
    const q = c.req.valid('query');
    // Zero's files belong to users, not sessions: a session scope holds none.
    const page = pageOf(q.scope_id ? [] : await files.ids(c.get('user').id), q);
    return c.json({ data: (await files.read(page.data)).map(fileMetadata), next_page: page.next_page });
  });

  app.get('/files/:id', async (c) => c.json(fileMetadata(await files.get(c.req.param('id'), c.get('user')))));

  app.get('/files/:id/content', async (c) => {
    const record = await files.get(c.req.param('id'), c.get('user'));
    const bytes = await files.content(record);
    return new Response(new Uint8Array(bytes), {
      headers: {
        'content-type': record.mime_type,
        'content-length': String(bytes.byteLength),
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(record.filename)}`,
        'x-content-type-options': 'nosniff',
      },
    });
  });

  app.delete('/files/:id', async (c) => {
    const record = await files.get(c.req.param('id'), c.get('user'));
    await files.delete(record);
    return c.json({ id: record.id, type: 'file_deleted' as const });
  });

  return app;
}
