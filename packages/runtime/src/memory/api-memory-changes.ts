import { ZeroError } from '@zero/agent/errors';
import type { ApiMemory, ApiMemoryStore, ApiMemoryStores, ApiMemoryVersion, MemoryActor } from './api-stores';
import { newMemoryId, newMemoryVersionId } from './api-stores';
import { memoryHash, type MemoryStore } from './memory-store';
import type { MemoryStoreRef } from './paths';

/**
 * Where a change to an API memory store's memories goes: the store's files (Zero's memory, with its
 * locks and caps), its records and versions, and who makes the change (recorded on each version).
 */
export interface ApiMemoryChanges {
  files: MemoryStore;
  records: ApiMemoryStores;
  store: ApiMemoryStore;
  actor: MemoryActor;
}

/** Zero's memory store behind an API memory store. */
export const apiStoreRef = (store: ApiMemoryStore): MemoryStoreRef => ({ kind: 'store', storeId: store.id });

/** An API memory path (`/a/b.md`) of Zero's memory path (`a/b.md`). */
export const apiMemoryPathOf = (path: string) => `/${path}`;

function versionOf(to: ApiMemoryChanges, memoryId: string, operation: ApiMemoryVersion['operation'], path: string, content: string | null): ApiMemoryVersion {
  return {
    v: 1,
    id: newMemoryVersionId(),
    memory_id: memoryId,
    memory_store_id: to.store.id,
    operation,
    content,
    content_sha256: content === null ? null : memoryHash(content),
    content_size_bytes: content === null ? null : Buffer.byteLength(content),
    path: apiMemoryPathOf(path),
    created_at: new Date().toISOString(),
    created_by: to.actor,
    redacted_at: null,
    redacted_by: null,
  };
}

/**
 * Creates a memory at `path` (Zero's memory path, already checked) holding `content`: its file (a file
 * already there is a conflict, and nothing is recorded), then its `created` version, then its record.
 * The caller checks first that no memory's path overlaps it. Answers the record.
 */
export async function createApiMemory(to: ApiMemoryChanges, path: string, content: string): Promise<ApiMemory> {
  await to.files.write(apiStoreRef(to.store), path, () => content, { ifNoneMatch: true });
  const id = newMemoryId();
  const created = versionOf(to, id, 'created', path, content);
  await to.records.putVersion(to.store, created);
  const record: ApiMemory = { v: 1, id, memory_store_id: to.store.id, path, memory_version_id: created.id, content_sha256: created.content_sha256!, content_size_bytes: created.content_size_bytes!, created_at: created.created_at, updated_at: created.created_at };
  await to.records.putMemory(to.store, record);
  return record;
}

/**
 * Moves and rewrites a memory: `current` is its record and `currentContent` the content it was read
 * with; `next` the path and content it gets. The file is renamed when the path changes and written
 * when the content does (only if it still holds `currentContent`: else a conflict, and no version),
 * then its `modified` version and record are written. The caller leaves out a change that changes
 * nothing and checks that a new path overlaps no other memory. Answers the new record.
 */
export async function modifyApiMemory(to: ApiMemoryChanges, current: ApiMemory, currentContent: string, next: { path: string; content: string }): Promise<ApiMemory> {
  const ref = apiStoreRef(to.store);
  if (next.path !== current.path) await to.files.rename(ref, current.path, next.path);
  if (next.content !== currentContent) await to.files.write(ref, next.path, () => next.content, { ifMatch: memoryHash(currentContent) });
  const modified = versionOf(to, current.id, 'modified', next.path, next.content);
  await to.records.putVersion(to.store, modified);
  const record: ApiMemory = { ...current, path: next.path, memory_version_id: modified.id, content_sha256: modified.content_sha256!, content_size_bytes: modified.content_size_bytes!, updated_at: modified.created_at };
  await to.records.putMemory(to.store, record);
  return record;
}

/**
 * Deletes a memory: its file (one already gone, from a delete that stopped half way, is no error),
 * then a `deleted` version, then its record. Its earlier versions stay readable.
 */
export async function deleteApiMemory(to: ApiMemoryChanges, current: ApiMemory): Promise<void> {
  await to.files.remove(apiStoreRef(to.store), current.path).catch((error: unknown) => {
    if (!(ZeroError.isInstance(error) && error.status === 404)) throw error;
  });
  await to.records.putVersion(to.store, versionOf(to, current.id, 'deleted', current.path, null));
  await to.records.deleteMemory(to.store, current.id);
}
