import { createHash } from 'node:crypto';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { conflict, notFound, tooLarge } from '@zero/agent/errors';
import { pathFromKey } from '../projects/paths';
import type { ArtifactStore } from '../store/artifact-store';
import type { MemoryLocks } from './memory-lock';
import { memoryKey, memoryPrefix, memoryStoreName, shownPath, type MemoryStoreRef } from './paths';
import type { MemoryEntry } from '@zero/agent/loop/memory-index';

/** What one store may hold; documented in docs/context.md (Memory), set with `ZERO_MEMORY_*`. */
export interface MemoryLimits {
  /** One file, in UTF-8 bytes. */
  maxFileBytes: number;
  /** All files of one store together. */
  maxStoreBytes: number;
  /** Files in one store. */
  maxFiles: number;
}

export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { maxFileBytes: 64 * 1024, maxStoreBytes: 1024 * 1024, maxFiles: 200 };

/** A file of a memory store, with the hash a writer gives back to update it (`If-Match`). */
export interface MemoryFile {
  path: string;
  content: string;
  size: number;
  hash: string;
}

/** One entry of a store's index (declared where the loop's prompt reads it). */
export type { MemoryEntry };

/** Conditions on a write: the hash the writer read (`If-Match`), or that there must be no file yet (`If-None-Match: *`). */
export interface WriteConditions {
  ifMatch?: string;
  ifNoneMatch?: boolean;
}

/** The content hash of a memory file: SHA-256 of its UTF-8 text, in hex. */
export const memoryHash = (content: string) => createHash('sha256').update(content, 'utf8').digest('hex');

/**
 * Memory stores in the bucket: text files addressed by path under
 * `memories/users/<id>/` and `memories/projects/<owner>/<repo>/`. Every write
 * holds the store's lock (see MemoryLocks), reads the current file, checks
 * the writer's conditions and the caps, then writes: concurrent writers of one
 * file get one success and one conflict, and a refused write writes nothing.
 */
export class MemoryStore {
  constructor(
    readonly artifacts: ArtifactStore,
    private readonly locks: MemoryLocks,
    readonly limits: MemoryLimits = DEFAULT_MEMORY_LIMITS,
  ) {}

  /** The store's files, in path order. */
  async list(store: MemoryStoreRef): Promise<MemoryEntry[]> {
    const prefix = memoryPrefix(store);
    const out: MemoryEntry[] = [];
    for (const o of await this.artifacts.list(prefix)) {
      const path = pathFromKey(prefix, o.key);
      if (path !== undefined) out.push({ path, size: o.size });
    }
    return out;
  }

  /** A file, or undefined when there is none. */
  async read(store: MemoryStoreRef, path: string): Promise<MemoryFile | undefined> {
    const content = await this.artifacts.getText(memoryKey(store, path));
    return content === undefined ? undefined : { path, content, size: Buffer.byteLength(content), hash: memoryHash(content) };
  }

  /**
   * Writes a file with the text `change` makes of the current one (undefined:
   * none yet). `change` may throw to refuse (a ZeroError, e.g. old text not
   * found); so may a broken condition (409), a cap (413) or a folder in the way.
   */
  async write(store: MemoryStoreRef, path: string, change: (current: MemoryFile | undefined) => string, conditions: WriteConditions = {}): Promise<MemoryFile> {
    const key = memoryKey(store, path);
    return this.locks.withLock(memoryStoreName(store), async () => {
      const current = await this.read(store, path);
      checkConditions(path, current, conditions);
      const content = change(current);
      const size = Buffer.byteLength(content);
      if (size > this.limits.maxFileBytes) {
        throw tooLarge(`${shownPath(path)} would be ${size} bytes; a memory file holds at most ${this.limits.maxFileBytes} bytes. Nothing was written.`, 'content');
      }
      const entries = await this.list(store);
      assertNoClash(entries, path);
      const others = entries.filter((e) => e.path !== path);
      if (!current && others.length + 1 > this.limits.maxFiles) {
        throw tooLarge(`the memory store holds at most ${this.limits.maxFiles} files; delete or merge some first. Nothing was written.`, 'path');
      }
      const total = others.reduce((n, e) => n + e.size, 0) + size;
      if (total > this.limits.maxStoreBytes) {
        throw tooLarge(`the memory store would hold ${total} bytes; it holds at most ${this.limits.maxStoreBytes}. Delete or shorten files first. Nothing was written.`, 'content');
      }
      await this.artifacts.put(key, content, 'text/plain; charset=utf-8');
      return { path, content, size, hash: memoryHash(content) };
    });
  }

  /** Deletes a file, or a folder with everything in it; answers how many files went. */
  async remove(store: MemoryStoreRef, path: string, conditions: Pick<WriteConditions, 'ifMatch'> = {}): Promise<number> {
    const key = memoryKey(store, path);
    return this.locks.withLock(memoryStoreName(store), async () => {
      const current = await this.read(store, path);
      if (current) {
        checkConditions(path, current, conditions);
        await this.artifacts.s3.send(new DeleteObjectCommand({ Bucket: this.artifacts.bucket, Key: key }));
        return 1;
      }
      if (conditions.ifMatch) checkConditions(path, current, conditions);
      const removed = await this.artifacts.deletePrefix(`${key}/`);
      if (removed === 0) throw notFound(`${shownPath(path)} does not exist`, 'path');
      return removed;
    });
  }

  /** Moves a file or a folder; the destination must not exist. Answers how many files moved. */
  async rename(store: MemoryStoreRef, from: string, to: string): Promise<number> {
    const fromKey = memoryKey(store, from);
    memoryKey(store, to);
    if (to === from || to.startsWith(`${from}/`)) throw conflict(`cannot move ${shownPath(from)} into itself`, { field: 'new_path' });
    return this.locks.withLock(memoryStoreName(store), async () => {
      const entries = await this.list(store);
      const moving = entries.filter((e) => e.path === from || e.path.startsWith(`${from}/`));
      if (moving.length === 0) throw notFound(`${shownPath(from)} does not exist`, 'old_path');
      if (entries.some((e) => e.path === to || e.path.startsWith(`${to}/`))) throw conflict(`${shownPath(to)} already exists`, { field: 'new_path' });
      const remaining = entries.filter((e) => !moving.includes(e));
      assertNoClash(remaining, to);
      const moves = moving.map((e) => ({ from: e.path, to: to + e.path.slice(from.length) }));
      for (const move of moves) memoryKey(store, move.to);
      for (const move of moves) {
        const content = (await this.artifacts.getText(memoryKey(store, move.from))) ?? '';
        await this.artifacts.put(memoryKey(store, move.to), content, 'text/plain; charset=utf-8');
      }
      if (moving.length === 1 && moving[0]!.path === from) await this.artifacts.s3.send(new DeleteObjectCommand({ Bucket: this.artifacts.bucket, Key: fromKey }));
      else await this.artifacts.deletePrefix(`${fromKey}/`);
      return moves.length;
    });
  }
}

function checkConditions(path: string, current: MemoryFile | undefined, { ifMatch, ifNoneMatch }: WriteConditions): void {
  if (ifNoneMatch && current) throw conflict(`${shownPath(path)} already exists; read it and change it, or delete it first. Nothing was written.`, { field: 'path', hash: current.hash });
  if (ifMatch !== undefined && current?.hash !== ifMatch) {
    const now = current ? `its hash is now ${current.hash}` : 'it no longer exists';
    throw conflict(`${shownPath(path)} changed since it was read (${now}); read it again and reapply your change. Nothing was written.`, {
      field: 'If-Match',
      ...(current ? { hash: current.hash } : {}),
    });
  }
}

/** S3 has no folders: a file may not share its path with a folder's, nor sit below a file. */
function assertNoClash(entries: readonly MemoryEntry[], path: string): void {
  if (entries.some((e) => e.path.startsWith(`${path}/`))) throw conflict(`${shownPath(path)} is a folder; name a file inside it`, { field: 'path' });
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const parent = segments.slice(0, i).join('/');
    if (entries.some((e) => e.path === parent)) throw conflict(`${shownPath(parent)} is a file, so it cannot hold ${shownPath(path)}`, { field: 'path' });
  }
}
