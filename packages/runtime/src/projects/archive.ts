import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { ZeroError, tooLarge } from '@zero/agent/errors';
import { PathError, normalizeProjectPath } from './paths';
import type { ProjectFileInput } from './project-store';

/** Limits on one uploaded archive. */
export interface ArchiveLimits {
  maxFiles: number;
  /** Entries of any kind: files, folders, links, devices. */
  maxEntries: number;
  /** Bytes of the whole archive once decompressed (headers, padding and skipped entries included). */
  maxBytes: number;
  /** UTF-8 bytes of one entry's path inside the project. */
  maxPathBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxFiles: 10_000, maxEntries: 20_000, maxBytes: 100 * 1024 * 1024, maxPathBytes: 512 };

/** Skipped entries named in the answer; the rest are only counted. */
export const MAX_SKIPPED_LISTED = 100;

export interface ExtractedArchive {
  files: ProjectFileInput[];
  /** The first entries left out (folders are not listed): links, devices and the like. */
  skipped: { path: string; reason: string }[];
  /** How many entries were left out in all. */
  skippedCount: number;
}

/**
 * Reads a `.tar.gz` into memory, checking every entry before anything is
 * written: each path goes through the project path normaliser (no zip-slip),
 * links and special files are skipped, and the limits (files, entries of any
 * kind, decompressed bytes, path length) end the upload with a 413/400 naming
 * the limit or the entry. `strip` drops leading folders, as `tar --strip-components` does.
 */
export async function extractTarGz(body: Readable | ReadableStream<Uint8Array>, limits: ArchiveLimits, strip = 0): Promise<ExtractedArchive> {
  const files: ProjectFileInput[] = [];
  const skipped: ExtractedArchive['skipped'] = [];
  let skippedCount = 0;
  let entries = 0;
  // Loaded on first use: only uploads extract archives.
  const { extract } = await import('tar-stream');
  const tar = extract();
  tar.on('entry', (header, stream, next) => {
    const consume = async () => {
      // Every entry costs memory and time, whatever its kind: folders and links count too.
      if (++entries > limits.maxEntries) throw tooLarge(`the archive has more than ${limits.maxEntries} entries`, 'archive');
      const raw = header.name.replace(/^\.\/+/, '');
      const parts = raw.split('/');
      const name = parts.slice(strip).join('/').replace(/\/+$/, '');
      if (header.type === 'directory' || name === '') {
        stream.resume();
        return;
      }
      let path: string;
      try {
        path = normalizeProjectPath(name);
      } catch (error) {
        if (PathError.isInstance(error)) throw new ZeroError('invalid_request', `archive entry "${header.name}" refused: ${error.message}`, { field: 'archive', entry: header.name });
        throw error;
      }
      if (Buffer.byteLength(path) > limits.maxPathBytes) {
        throw new ZeroError('invalid_request', `archive entry "${header.name}" has a path over ${limits.maxPathBytes} bytes`, { field: 'archive', entry: header.name });
      }
      if (header.type !== 'file' && header.type !== 'contiguous-file') {
        if (++skippedCount <= MAX_SKIPPED_LISTED) skipped.push({ path, reason: `${header.type ?? 'unknown'} entries are not extracted` });
        stream.resume();
        return;
      }
      if (files.length >= limits.maxFiles) throw tooLarge(`the archive has more than ${limits.maxFiles} files`, 'archive');
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      files.push({ path, body: Buffer.concat(chunks) });
    };
    consume().then(() => next(), (error) => next(error));
  });
  const source = body instanceof Readable ? body : Readable.fromWeb(body as never);
  try {
    await pipeline(source, createGunzip(), decompressedAtMost(limits.maxBytes), tar);
  } catch (error) {
    if (ZeroError.isInstance(error)) throw error;
    throw new ZeroError('invalid_request', `the body is not a readable .tar.gz archive: ${(error as Error).message}`, { field: 'archive' });
  }
  // A path that appears twice is overwritten by the later entry, as tar does.
  return { files: [...new Map(files.map((f) => [f.path, f])).values()], skipped, skippedCount };
}

/**
 * Counts what gunzip puts out and stops at the limit: the real uncompressed
 * size, so a gzip bomb ends at `maxBytes` whatever the tar inside claims.
 */
function decompressedAtMost(maxBytes: number): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) done(tooLarge(`the archive holds more than ${maxBytes} bytes uncompressed`, 'archive'));
      else done(null, chunk);
    },
  });
}
