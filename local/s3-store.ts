import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3Object from 's3rver/lib/models/object.js';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';

/**
 * s3rver's file store, made read-after-write consistent as S3 is. s3rver 3.7.1 answers a PUT before
 * its file is written (a Buffer body resolves at `end()`, a streamed one when its hash transform
 * finishes, not the file), and writes over the object in place, so a GET right after a PUT, or
 * during one, reads an empty, partial or earlier object. Here every file of an object (its content,
 * its MD5, its metadata) is written whole to a temporary name beside it and renamed over the old one
 * before the PUT is answered: a reader sees the old file or the new one, never a part. Temporary names
 * do not end in s3rver's object suffix, so listings skip them. A GET opens the object once and takes
 * its size from that open file, so an overwrite renamed in meanwhile cannot mix two versions (its ETag
 * may still be the other version's while the two race; a GET after the PUT gets the new one's).
 */
export class ConsistentFilesystemStore extends FilesystemStore {
  async getObject(bucket: string, key: string, options?: { start?: number; end?: number }) {
    let handle: FileHandle;
    try {
      handle = await open(this.getResourcePath(bucket, key, 'object'), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let streaming = false;
    try {
      const stat = await handle.stat();
      const metadata = { ...(await this.getMetadata(bucket, key)), 'content-length': stat.size, 'last-modified': stat.mtime.toUTCString() };
      // The range as s3rver computes it.
      const lastByte = Math.max(0, stat.size - 1);
      const range = { start: options?.start || 0, end: Math.min(options?.end || Infinity, lastByte) };
      const ranged = options !== undefined && (options.start !== undefined || Boolean(options.end));
      const satisfiable = range.start >= 0 && Math.min(range.end, lastByte) >= range.start;
      const content = satisfiable ? handle.createReadStream({ start: range.start, end: range.end }) : null;
      streaming = content !== null;
      const object = new S3Object(bucket, key, content, metadata);
      if (ranged) object.range = range;
      return object;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    } finally {
      // The stream closes the file when it ends; without one it is closed here.
      if (!streaming) await handle.close();
    }
  }

  async putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: Record<string, string> }) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const { size, md5 } = await writeWhole(objectPath, object.content);
    await this.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size, md5 };
  }

  async putPart(bucket: string, uploadId: string, partNumber: number, content: Readable) {
    const partPath = join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    await mkdir(dirname(partPath), { recursive: true });
    const { size, md5 } = await writeWhole(partPath, content);
    await replaceFile(`${partPath}.md5`, md5);
    return { size, md5 };
  }

  override async putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string) {
    // The fields s3rver keeps, as its own putMetadata picks them.
    const kept = Object.fromEntries(Object.entries(metadata).filter(([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-')));
    if (md5) await replaceFile(this.getResourcePath(bucket, key, 'object.md5'), md5);
    await replaceFile(this.getResourcePath(bucket, key, 'metadata.json'), JSON.stringify(kept, null, 2));
  }

  async copyObject(srcBucket: string, srcKey: string, destBucket: string, destKey: string, replacementMetadata?: Record<string, string>) {
    const source = this.getResourcePath(srcBucket, srcKey, 'object');
    const target = this.getResourcePath(destBucket, destKey, 'object');
    if (source !== target) {
      await mkdir(dirname(target), { recursive: true });
      for (const suffix of ['', '.md5']) await copyWhole(`${source}${suffix}`, `${target}${suffix}`);
      if (!replacementMetadata) await copyWhole(this.getResourcePath(srcBucket, srcKey, 'metadata.json'), this.getResourcePath(destBucket, destKey, 'metadata.json'));
    }
    if (replacementMetadata) await this.putMetadata(destBucket, destKey, replacementMetadata);
    return this.getMetadata(destBucket, destKey);
  }
}

/** A temporary name beside `path` that no listing takes for an object. */
const temporary = (path: string) => `${path}.${randomUUID()}.partial`;

/** Writes `content` to `path` whole (renamed over it once written and closed), with its size and MD5. */
async function writeWhole(path: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  const hash = createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const partial = temporary(path);
  try {
    await pipeline(Buffer.isBuffer(content) ? [content] : content, measure, createWriteStream(partial));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { size, md5: hash.digest('hex') };
}

async function replaceFile(path: string, data: string): Promise<void> {
  const partial = temporary(path);
  await writeFile(partial, data);
  await rename(partial, path);
}

/** Copies `from` over `to` whole; a missing `from` (an object stored without its MD5 file yet) copies nothing. */
async function copyWhole(from: string, to: string): Promise<void> {
  const partial = temporary(to);
  try {
    await copyFile(from, partial);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rename(partial, to);
}
