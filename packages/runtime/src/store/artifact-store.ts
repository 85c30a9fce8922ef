import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsCommand, NoSuchKey, NotFound, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** Objects in the bucket: offloaded log records, reports, artifacts. */
export class ArtifactStore {
  constructor(
    readonly s3: S3Client,
    readonly bucket: string,
  ) {}

  async put(key: string, body: string | Uint8Array, contentType = 'application/octet-stream'): Promise<void> {
    // The length stated: the SDK sets none for an empty body and then warns of "a Stream of unknown length".
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: length, ContentType: contentType }));
  }

  /** The object's text, or undefined when there is none. */
  async getText(key: string): Promise<string | undefined> {
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await object.Body?.transformToString('utf8');
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** The object's bytes, or undefined when there is none. */
  async getBytes(key: string): Promise<Uint8Array | undefined> {
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await object.Body?.transformToByteArray();
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.put(key, JSON.stringify(value), 'application/json');
  }

  async getJson<T = unknown>(key: string): Promise<T | undefined> {
    const text = await this.getText(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /**
   * Keys under a prefix, in key order. Pages with ListObjects (v1) and a
   * marker: s3rver cannot issue v2 continuation tokens on OpenSSL 3 (it uses
   * DES), so any v2 listing over 1,000 keys fails locally; v1 works on both.
   */
  async list(prefix: string): Promise<{ key: string; size: number; etag: string }[]> {
    const out: { key: string; size: number; etag: string }[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await this.s3.send(new ListObjectsCommand({ Bucket: this.bucket, Prefix: prefix, Marker: marker }));
      for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: o.Size ?? 0, etag: o.ETag ?? '' });
      if (!page.IsTruncated || out.length === 0) return out;
      marker = out.at(-1)!.key;
    }
  }

  /** Whether the object is there (a HEAD request). */
  async exists(key: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (error instanceof NotFound || error instanceof NoSuchKey || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw error;
    }
  }

  /** Deletes one object (nothing happens when there is none). */
  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    await this.deleteKeys(keys.map((k) => k.key));
    return keys.length;
  }

  /** Deletes these objects, a thousand per request (S3's batch size). */
  async deleteKeys(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await this.s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((key) => ({ Key: key })) } }));
    }
  }
}
