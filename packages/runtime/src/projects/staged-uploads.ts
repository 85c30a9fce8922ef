import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import * as z from 'zod';
import { ZeroError, notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '../store/artifact-store';
import { projectIdSchema, uploadIdSchema, type UploadTicket } from '@zero/agent/wire';

/** How long an upload's URL takes the archive, and how long the upload may then wait for its completion. */
export interface StagedUploadTimes {
  urlTtlMs: number;
  completeWithinMs: number;
}

export const DEFAULT_STAGED_UPLOAD_TIMES: StagedUploadTimes = { urlTtlMs: 15 * 60_000, completeWithinMs: 60 * 60_000 };

/**
 * What Zero keeps of an upload beside the archive, `uploads/<project>/<id>.json`:
 * who started it, how to extract it, and until when it may be completed.
 */
const uploadRecordSchema = z.object({
  v: z.literal(1),
  upload_id: uploadIdSchema,
  project_id: projectIdSchema,
  user_id: z.string(),
  strip: z.number().int().min(0),
  created_at: z.string(),
  complete_by: z.string(),
});
type UploadRecord = z.infer<typeof uploadRecordSchema>;

/** Staged objects live under one prefix, outside every project's files, so a lifecycle rule can expire what is never completed. */
export const STAGED_UPLOADS_PREFIX = 'uploads/';

const archiveKey = (projectId: string, uploadId: string) => `${STAGED_UPLOADS_PREFIX}${projectId}/${uploadId}.tar.gz`;
const recordKey = (projectId: string, uploadId: string) => `${STAGED_UPLOADS_PREFIX}${projectId}/${uploadId}.json`;

/**
 * Archives too large for a request body (a Lambda function URL takes 6 MB)
 * go straight to the bucket through a presigned form POST whose policy caps
 * the size, so S3 itself refuses a larger one; the size is checked again when
 * the upload is completed (a server that ignores the policy, such as s3rver,
 * or a key written otherwise). Callers check the project role first.
 */
export class StagedUploads {
  constructor(
    private readonly artifacts: ArtifactStore,
    /** The compressed archive's limit, as the archive route's. */
    private readonly maxBytes: number,
    private readonly times: StagedUploadTimes = DEFAULT_STAGED_UPLOAD_TIMES,
  ) {}

  /** Starts an upload: records it, then signs a form POST of its archive key. */
  async create(projectId: string, userId: string, strip: number): Promise<UploadTicket> {
    const uploadId = randomBytes(16).toString('hex');
    const now = Date.now();
    const record: UploadRecord = {
      v: 1,
      upload_id: uploadId,
      project_id: projectId,
      user_id: userId,
      strip,
      created_at: new Date(now).toISOString(),
      complete_by: new Date(now + this.times.completeWithinMs).toISOString(),
    };
    await this.artifacts.putJson(recordKey(projectId, uploadId), record);
    // Loaded on first use: only large uploads sign a form.
    const { createPresignedPost } = await import('@aws-sdk/s3-presigned-post');
    const expiresSeconds = Math.floor(this.times.urlTtlMs / 1000);
    const { url, fields } = await createPresignedPost(this.artifacts.s3, {
      Bucket: this.artifacts.bucket,
      Key: archiveKey(projectId, uploadId),
      Conditions: [['content-length-range', 1, this.maxBytes]],
      Expires: expiresSeconds,
    });
    return {
      upload_id: uploadId,
      url,
      method: 'POST',
      fields,
      expires_at: new Date(now + expiresSeconds * 1000).toISOString(),
      complete_by: record.complete_by,
      max_bytes: this.maxBytes,
    };
  }

  /**
   * Hands the staged archive to `apply` with the upload's `strip`, then forgets
   * the upload: a second completion is a 404. An unknown, expired or
   * never-sent upload is a 404; an archive over the limit a 413. An archive
   * `apply` refuses (4xx) is discarded too, since it cannot succeed later; any
   * other failure keeps the upload for a retry.
   */
  async complete<T>(projectId: string, uploadId: string, apply: (archive: Readable, strip: number) => Promise<T>): Promise<T> {
    const record = await this.record(projectId, uploadId);
    if (!record) throw notFound(`no upload "${uploadId}" in project "${projectId}" (never started, already completed, or expired)`, 'upload_id');
    if (Date.parse(record.complete_by) < Date.now()) {
      await this.discard(projectId, uploadId);
      throw notFound(`upload "${uploadId}" expired at ${record.complete_by}; start a new one`, 'upload_id');
    }
    const archive = await this.open(projectId, uploadId);
    if (!archive) throw notFound(`nothing was sent for upload "${uploadId}": POST the archive to the upload's url first`, 'upload_id');
    if (archive.size > this.maxBytes) {
      archive.body.destroy();
      await this.discard(projectId, uploadId);
      throw new ZeroError('payload_too_large', `the uploaded archive is ${archive.size} bytes, over the limit of ${this.maxBytes} bytes compressed`, { field: 'archive', limit: this.maxBytes });
    }
    let result: T;
    try {
      result = await apply(archive.body, record.strip);
    } catch (error) {
      archive.body.destroy();
      if (ZeroError.isInstance(error) && error.status < 500) await this.discard(projectId, uploadId);
      throw error;
    }
    await this.discard(projectId, uploadId);
    return result;
  }

  private async record(projectId: string, uploadId: string): Promise<UploadRecord | undefined> {
    const parsed = uploadRecordSchema.safeParse(await this.artifacts.getJson(recordKey(projectId, uploadId)));
    // Bound to the project in its key and its content: an id given under another project's path is unknown there.
    return parsed.success && parsed.data.project_id === projectId ? parsed.data : undefined;
  }

  private async open(projectId: string, uploadId: string): Promise<{ body: Readable; size: number } | undefined> {
    try {
      const object = await this.artifacts.s3.send(new GetObjectCommand({ Bucket: this.artifacts.bucket, Key: archiveKey(projectId, uploadId) }));
      return { body: object.Body as Readable, size: object.ContentLength ?? 0 };
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  private async discard(projectId: string, uploadId: string): Promise<void> {
    await this.artifacts.deleteKeys([archiveKey(projectId, uploadId), recordKey(projectId, uploadId)]);
  }
}
