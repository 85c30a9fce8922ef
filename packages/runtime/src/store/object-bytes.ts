import { GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import type { ArtifactStore } from './artifact-store';

/**
 * Objects as bytes, and written once: what skills' files and versions need, kept beside the
 * artifact store rather than in it so that a cold start that needs neither does not load them.
 */

/** The object's bytes, or undefined when there is none. */
export async function getObjectBytes(artifacts: ArtifactStore, key: string): Promise<Uint8Array | undefined> {
  try {
    const object = await artifacts.s3.send(new GetObjectCommand({ Bucket: artifacts.bucket, Key: key }));
    return await object.Body?.transformToByteArray();
  } catch (error) {
    if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/**
 * Writes the object only if its key is free (`If-None-Match: *`): false, writing nothing, when it
 * exists already. What keeps a write-once object (a version) from ever being replaced on S3 (the
 * local s3rver does not check the condition: callers look before they write as well).
 */
export async function putObjectIfAbsent(artifacts: ArtifactStore, key: string, body: string | Uint8Array, contentType = 'application/octet-stream'): Promise<boolean> {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  try {
    await artifacts.s3.send(new PutObjectCommand({ Bucket: artifacts.bucket, Key: key, Body: body, ContentLength: length, ContentType: contentType, IfNoneMatch: '*' }));
    return true;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 412 || status === 409) return false;
    throw error;
  }
}
