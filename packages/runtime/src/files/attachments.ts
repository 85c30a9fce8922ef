import { invalidField, tooLarge } from '@zero/agent/errors';
import {
  attachmentProblem,
  isImageType,
  MAX_ATTACHMENTS_PER_MESSAGE,
  MAX_CONVERSATION_ATTACHMENT_BYTES,
  messageAttachmentsProblem,
  sniffMediaType,
  type AttachmentParam,
  type AttachmentRef,
} from '@zero/agent/wire';
import type { ContentBlockParam } from '@zero/agent/model/provider';
import type { ArtifactStore } from '../store/artifact-store';
import { BlobStore } from './blob-store';
import { FileStore, type FileCaller } from './file-store';

/** An attachment as a door received it: bytes (base64 already decoded) or a Files API file of the sender's. */
export type ReceivedAttachment = { bytes: Uint8Array; filename?: string } | { file_id: string };

/** Decodes a base64 body or a `data:<type>;base64,` URL; a 400 naming `field` when it is neither. */
export function decodeBase64(data: string, field: string): Uint8Array {
  const body = data.startsWith('data:') ? /^data:[^,]*;base64,(.*)$/s.exec(data)?.[1] : data;
  if (body === undefined || !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(body)) throw invalidField(field, 'must be base64 (or a data: URL with ;base64)');
  return new Uint8Array(Buffer.from(body, 'base64'));
}

/** `attachments` of a chat request as the sender gave them. */
export const receivedOf = (params: readonly AttachmentParam[], field: string): ReceivedAttachment[] =>
  params.map((p, i) => ('file_id' in p ? { file_id: p.file_id } : { bytes: decodeBase64(p.data, `${field}.${i}.data`), ...(p.filename ? { filename: p.filename } : {}) }));

/**
 * Checks a message's attachments against the Messages API's limits (type by content, each one's
 * size, their number and total) and stores each once by its hash, held by the session `sessionId`:
 * its members may read them, and deleting a file leaves them (see files/blob-store.ts). A file is reached as its owner (or an administrator) reaches it. Throws a
 * 400/404/413 naming the attachment's field and the limit, before the message is taken; nothing is
 * sent to a model.
 */
export async function storeAttachments(artifacts: ArtifactStore, caller: FileCaller, received: readonly ReceivedAttachment[], field: string, sessionId: string): Promise<AttachmentRef[]> {
  if (received.length > MAX_ATTACHMENTS_PER_MESSAGE) throw invalidField(field, `holds ${received.length} attachments; a message takes at most ${MAX_ATTACHMENTS_PER_MESSAGE}`);
  const files = new FileStore(artifacts);
  const loaded = await Promise.all(
    received.map(async (a, i) => {
      if (!('file_id' in a)) return { bytes: a.bytes, filename: a.filename, at: `${field}.${i}` };
      const record = await files.get(a.file_id, caller, `${field}.${i}.file_id`);
      return { bytes: await files.content(record), filename: record.filename, file_id: record.id, at: `${field}.${i}` };
    }),
  );
  for (const a of loaded) {
    const problem = attachmentProblem(a.bytes);
    if (problem) throw (sniffMediaType(a.bytes) ? tooLarge : invalidField)(`${a.at}: ${a.filename ?? 'the attachment'} ${problem}`, a.at);
  }
  const total = loaded.reduce((sum, a) => sum + a.bytes.byteLength, 0);
  const tooMuch = messageAttachmentsProblem(total);
  if (tooMuch) throw tooLarge(`${field}: the attachments ${tooMuch}`, field);
  const blobs = new BlobStore(artifacts);
  return Promise.all(
    loaded.map(async (a) => {
      const media_type = sniffMediaType(a.bytes)!;
      const { sha256, size } = await blobs.put(a.bytes, media_type, `session:${sessionId}`);
      return { sha256, media_type, size, ...(a.filename ? { filename: a.filename.slice(0, 255) } : {}), ...(a.file_id ? { file_id: a.file_id } : {}) };
    }),
  );
}

/** Whether `sha256` is an attachment of the session's messages (its members may read it). */
export const sessionHolds = (artifacts: ArtifactStore, sessionId: string, sha256: string) => new BlobStore(artifacts).holds(sha256, `session:${sessionId}`);

/** The bytes of attachments, base64, by hash. */
export type { AttachmentData } from '@zero/agent/loop/attachment-blocks';
export { attachmentBlocks } from '@zero/agent/loop/attachment-blocks';
import type { AttachmentData } from '@zero/agent/loop/attachment-blocks';

/**
 * Reads the conversation's attachments for a model call, newest first, until their total reaches
 * MAX_CONVERSATION_ATTACHMENT_BYTES: older ones past it are left out (their blocks say so), so the
 * request stays within the Messages API's size limit.
 */
export async function loadAttachmentData(artifacts: ArtifactStore, refs: readonly AttachmentRef[]): Promise<AttachmentData> {
  const data = new Map<string, string>();
  if (!refs.length) return data;
  const blobs = new BlobStore(artifacts);
  let total = 0;
  const chosen: AttachmentRef[] = [];
  for (const ref of [...refs].reverse()) {
    if (chosen.some((c) => c.sha256 === ref.sha256)) continue;
    if (total + ref.size > MAX_CONVERSATION_ATTACHMENT_BYTES) continue;
    total += ref.size;
    chosen.push(ref);
  }
  await Promise.all(
    chosen.map(async (ref) => {
      const bytes = await blobs.read(ref.sha256);
      if (bytes) data.set(ref.sha256, Buffer.from(bytes).toString('base64'));
    }),
  );
  return data;
}

