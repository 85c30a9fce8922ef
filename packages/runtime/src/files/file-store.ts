import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '../store/artifact-store';
import { BlobStore } from './blob-store';

/** A Files API upload's limit: the bytes are held in memory while they are stored. */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** What Zero keeps of an uploaded file, at `files/<id>.json`; its bytes are the blob `sha256`. */
export const fileRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  owner: z.string(),
  filename: z.string(),
  mime_type: z.string(),
  size_bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});
export type FileRecord = z.infer<typeof fileRecordSchema>;

/** File ids sort by creation time (a base-36 millisecond clock, then randomness), so an owner's list is in key order. */
const newFileId = () => `file_${Date.now().toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;
export const fileIdSchema = z.string().regex(/^file_[0-9a-z]{9}[0-9a-f]{20}$/, 'is not a file id');

const recordKey = (id: string) => `files/${id}.json`;
const ownerPrefix = (owner: string) => `file-owners/${encodeURIComponent(owner)}/`;

/** Who asks: their id, and whether they administer the deployment (administrators reach every file). */
export interface FileCaller {
  id: string;
  admin?: boolean;
}

/**
 * Uploaded files (the Files API) in the bucket: each is its owner's; another user learns nothing of
 * it (a 404, as for a file that does not exist), an administrator reaches it. The bytes are a
 * content-addressed blob (see BlobStore), held by the file until it is deleted.
 */
export class FileStore {
  readonly blobs: BlobStore;

  constructor(private readonly artifacts: ArtifactStore) {
    this.blobs = new BlobStore(artifacts);
  }

  async upload(owner: string, file: { filename: string; mimeType: string; bytes: Uint8Array; expiresInSeconds?: number }): Promise<FileRecord> {
    const id = newFileId();
    const blob = await this.blobs.put(file.bytes, file.mimeType, `file:${id}`);
    const now = Date.now();
    const record: FileRecord = {
      v: 1,
      id,
      owner,
      filename: file.filename,
      mime_type: file.mimeType,
      size_bytes: blob.size,
      sha256: blob.sha256,
      created_at: new Date(now).toISOString(),
      expires_at: file.expiresInSeconds === undefined ? null : new Date(now + file.expiresInSeconds * 1000).toISOString(),
    };
    await this.artifacts.putJson(recordKey(id), record);
    await this.artifacts.put(`${ownerPrefix(owner)}${id}`, '');
    return record;
  }

  /** The file, if `caller` may reach it (its owner, an administrator) and it has not expired; else a 404 naming `field`. */
  async get(id: string, caller: FileCaller, field = 'file_id'): Promise<FileRecord> {
    const parsed = fileIdSchema.safeParse(id);
    const raw = parsed.success ? await this.artifacts.getJson(recordKey(id)) : undefined;
    const record = raw === undefined ? undefined : fileRecordSchema.parse(raw);
    if (!record || (record.owner !== caller.id && !caller.admin) || expired(record)) throw notFound(`no file "${id}"`, field);
    return record;
  }

  /** The ids of the owner's files, newest first: one listing, no file read (page them, then `read` the page). */
  async ids(owner: string): Promise<string[]> {
    const keys = await this.artifacts.list(ownerPrefix(owner));
    return keys.reverse().map(({ key }) => key.slice(key.lastIndexOf('/') + 1));
  }

  /** These files of the owner's, in order, leaving out any deleted or expired since they were listed. */
  async read(ids: readonly string[]): Promise<FileRecord[]> {
    const records = await Promise.all(ids.map((id) => this.artifacts.getJson(recordKey(id))));
    return records.filter((r) => r !== undefined).map((r) => fileRecordSchema.parse(r)).filter((r) => !expired(r));
  }

  async content(record: FileRecord): Promise<Uint8Array> {
    const bytes = await this.blobs.read(record.sha256);
    if (!bytes) throw notFound(`the content of file "${record.id}" is gone`, 'file_id');
    return bytes;
  }

  /** Deletes the file (checked with `get` first); its bytes go with it unless a session's message holds them. */
  async delete(record: FileRecord): Promise<void> {
    await this.artifacts.delete(recordKey(record.id));
    await this.artifacts.delete(`${ownerPrefix(record.owner)}${record.id}`);
    await this.blobs.release(record.sha256, `file:${record.id}`);
  }
}

const expired = (record: FileRecord) => record.expires_at !== null && Date.parse(record.expires_at) <= Date.now();
