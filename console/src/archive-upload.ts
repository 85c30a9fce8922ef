import { archiveUploadSchema, errorResponseSchema, uploadTicketSchema, type UploadTicket } from '@zero/agent/wire';
import type * as z from 'zod';
import { api, ApiError, type Credentials } from './api';

export type ArchiveUploaded = z.output<typeof archiveUploadSchema>;

/** Where an archive upload is: its bytes going out (`sent` of `total`), then Zero unpacking it. */
export type UploadProgress = { stage: 'sending'; sent: number; total: number; viaStorage: boolean } | { stage: 'applying' };

/**
 * The largest archive sent to Zero as a request body (a Lambda function URL
 * takes 6 MB, multipart overhead included); a larger one goes straight to the
 * bucket. As `zero projects push`'s `ZERO_PUSH_BODY_MAX_BYTES`, this browser's
 * `localStorage['zero.uploadBodyMaxBytes']` may lower it.
 */
const ARCHIVE_BODY_MAX_BYTES = 5 * 1024 * 1024;

function archiveBodyMaxBytes(): number {
  const set = Number(localStorage.getItem('zero.uploadBodyMaxBytes') ?? NaN);
  return Number.isInteger(set) && set >= 0 ? set : ARCHIVE_BODY_MAX_BYTES;
}

/**
 * Replaces a project's files with a `.tar.gz`: small archives as the body of
 * `POST …/archive`; larger ones through a presigned upload (start it, POST the
 * file to S3, complete it), so they never pass through the API function.
 * Refusals throw an Error whose message says what to do.
 */
export async function uploadArchive(creds: Credentials, projectId: string, file: File, onProgress: (progress: UploadProgress) => void): Promise<ArchiveUploaded> {
  const project = projectId.split('/').map(encodeURIComponent).join('/');
  const viaStorage = file.size > archiveBodyMaxBytes();
  // Shown at once: a progress event comes only once bytes are on their way.
  onProgress({ stage: 'sending', sent: 0, total: file.size, viaStorage });
  if (!viaStorage) {
    const sent = await send({ method: 'POST', url: `${creds.baseUrl}/api/v2/projects/${project}/archive`, headers: { authorization: `Bearer ${creds.key}`, 'content-type': 'application/gzip' }, body: file }, (sent, total) => {
      onProgress(sent < total ? { stage: 'sending', sent, total, viaStorage } : { stage: 'applying' });
    });
    if (sent.status === 0) throw new Error(`Could not reach Zero at ${creds.baseUrl}.`);
    return archiveUploadSchema.parse(answer(sent, 'POST /archive'));
  }

  // Zero checks the size against its limit before anything is sent (a 400 naming the limit).
  const ticket = await api(creds, 'POST', `/projects/${project}/uploads`, { bytes: file.size }, uploadTicketSchema);
  await sendToStorage(ticket, file, (sent, total) => onProgress({ stage: 'sending', sent, total, viaStorage }));
  onProgress({ stage: 'applying' });
  return api(creds, 'POST', `/projects/${project}/uploads/${encodeURIComponent(ticket.upload_id)}/complete`, undefined, archiveUploadSchema);
}

/** The form POST to S3: the policy's fields first, then the file (S3 ignores fields after it). */
async function sendToStorage(ticket: UploadTicket, file: File, onSent: (sent: number, total: number) => void): Promise<void> {
  const form = new FormData();
  for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
  form.append('file', file, file.name);
  const origin = new URL(ticket.url).origin;
  const sent = await send({ method: ticket.method, url: ticket.url, body: form }, onSent);
  // A network failure and a refused CORS check look alike to a page: status 0, no detail.
  if (sent.status === 0) throw new Error(`Could not reach the storage at ${origin}: the connection failed, or the bucket's CORS rule does not allow POST from ${location.origin}.`);
  if (sent.status >= 200 && sent.status < 300) return;
  const code = /<Code>([^<]*)<\/Code>/.exec(sent.text)?.[1] ?? `HTTP ${sent.status}`;
  const message = /<Message>([^<]*)<\/Message>/.exec(sent.text)?.[1] ?? sent.text.slice(0, 200);
  if (code === 'EntityTooLarge') throw new Error(`The storage refused the archive: it is ${file.size.toLocaleString()} bytes, over the limit of ${ticket.max_bytes.toLocaleString()} bytes compressed.`);
  if (/expired/i.test(message)) throw new Error(`The upload link expired before the archive was sent (it was good until ${new Date(ticket.expires_at).toLocaleTimeString()}); upload it again.`);
  throw new Error(`The storage refused the archive (${code}): ${message}`);
}

type Sent = { status: number; text: string };

/** One request through XMLHttpRequest: fetch cannot report how much of a body has gone out. */
function send(request: { method: string; url: string; headers?: Record<string, string>; body: XMLHttpRequestBodyInit }, onSent: (sent: number, total: number) => void): Promise<Sent> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url);
    for (const [name, value] of Object.entries(request.headers ?? {})) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => onSent(e.loaded, e.total);
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => resolve({ status: 0, text: '' });
    xhr.send(request.body);
  });
}

/** A JSON answer of Zero's; a refusal becomes an ApiError with Zero's message. */
function answer(sent: Sent, what: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(sent.text);
  } catch {
    json = undefined;
  }
  if (sent.status >= 200 && sent.status < 300) return json;
  const refusal = errorResponseSchema.safeParse(json);
  throw new ApiError(sent.status, refusal.success ? refusal.data.error.message : `${what} answered ${sent.status}`);
}
