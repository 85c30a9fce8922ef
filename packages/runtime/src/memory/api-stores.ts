import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '../store/artifact-store';

/**
 * The Managed Agents API's memory stores (`memstore_…`) beside Zero's memory: a store's files are
 * Zero memory files (`memories/stores/<id>/<path>`, written through `MemoryStore`, its locks and
 * caps), and this keeps what the API adds around them, under `memory-stores/<owner>/<id>/`:
 * the store (`store.json`), each memory's stable id and path (`memories/<mem id>.json`), and every
 * change as an immutable version (`versions/<memver id>.json`, changed only by a redaction).
 */

const actorSchema = z.object({ type: z.literal('user_actor'), user_id: z.string() });
export type MemoryActor = z.infer<typeof actorSchema>;

export const apiMemoryStoreSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  owner: z.string(),
  name: z.string(),
  description: z.string(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
});
export type ApiMemoryStore = z.infer<typeof apiMemoryStoreSchema>;

/** A memory: its id, which stays when its path changes; the content is the Zero memory file at `path`. */
export const apiMemorySchema = z.object({
  v: z.literal(1),
  id: z.string(),
  memory_store_id: z.string(),
  /** Without the leading "/" (Zero's memory path). */
  path: z.string(),
  memory_version_id: z.string(),
  content_sha256: z.string(),
  content_size_bytes: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ApiMemory = z.infer<typeof apiMemorySchema>;

export const apiMemoryVersionSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  memory_id: z.string(),
  memory_store_id: z.string(),
  operation: z.enum(['created', 'modified', 'deleted']),
  /** Null for a deletion and once redacted. */
  content: z.string().nullable(),
  content_sha256: z.string().nullable(),
  content_size_bytes: z.number().int().nullable(),
  /** With the leading "/"; null once redacted. */
  path: z.string().nullable(),
  created_at: z.string(),
  created_by: actorSchema,
  redacted_at: z.string().nullable(),
  redacted_by: actorSchema.nullable(),
});
export type ApiMemoryVersion = z.infer<typeof apiMemoryVersionSchema>;

const STORE_ID = /^memstore_[a-z0-9]{1,64}$/;
const MEMORY_ID = /^mem_[a-z0-9]{1,64}$/;
const VERSION_ID = /^memver_[a-z0-9]{1,64}$/;
const random = (n: number) => [...randomBytes(n)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
export const newMemoryStoreId = () => `memstore_${random(24)}`;
export const newMemoryId = () => `mem_${random(24)}`;
/** Sortable by time: a store's versions list in the order they were written. */
export const newMemoryVersionId = () => `memver_${Date.now().toString(36).padStart(10, '0')}${random(14)}`;

const ownerPrefix = (owner: string) => `memory-stores/${encodeURIComponent(owner).replaceAll('.', '%2E')}/`;
const storePrefix = (owner: string, id: string) => `${ownerPrefix(owner)}${id}/`;

export class ApiMemoryStores {
  constructor(private readonly artifacts: ArtifactStore) {}

  async putStore(store: ApiMemoryStore): Promise<void> {
    await this.artifacts.putJson(`${storePrefix(store.owner, store.id)}store.json`, apiMemoryStoreSchema.parse(store));
  }

  /** The owner's store, or a 404 (also for another user's: nobody learns it exists). */
  async reachStore(owner: string, id: string): Promise<ApiMemoryStore> {
    const raw = STORE_ID.test(id) ? await this.artifacts.getJson(`${storePrefix(owner, id)}store.json`) : undefined;
    if (!raw) throw notFound(`no memory store "${id}"`);
    return apiMemoryStoreSchema.parse(raw);
  }

  /** The owner's stores, newest first. */
  async listStores(owner: string): Promise<ApiMemoryStore[]> {
    const keys = (await this.artifacts.list(ownerPrefix(owner))).map((k) => k.key).filter((key) => key.endsWith('/store.json'));
    const stores = await Promise.all(keys.map(async (key) => apiMemoryStoreSchema.parse(await this.artifacts.getJson(key))));
    return stores.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  /** Deletes the store's records and versions (its files are Zero's memory: the caller deletes them). */
  async deleteStore(store: ApiMemoryStore): Promise<void> {
    await this.artifacts.deletePrefix(storePrefix(store.owner, store.id));
  }

  async putMemory(store: ApiMemoryStore, memory: ApiMemory): Promise<void> {
    await this.artifacts.putJson(`${storePrefix(store.owner, store.id)}memories/${memory.id}.json`, apiMemorySchema.parse(memory));
  }

  async reachMemory(store: ApiMemoryStore, id: string): Promise<ApiMemory> {
    const raw = MEMORY_ID.test(id) ? await this.artifacts.getJson(`${storePrefix(store.owner, store.id)}memories/${id}.json`) : undefined;
    if (!raw) throw notFound(`no memory "${id}" in memory store "${store.id}"`);
    return apiMemorySchema.parse(raw);
  }

  /** The store's memories, in path order. */
  async listMemories(store: ApiMemoryStore): Promise<ApiMemory[]> {
    const keys = await this.artifacts.list(`${storePrefix(store.owner, store.id)}memories/`);
    const memories = await Promise.all(keys.map(async ({ key }) => apiMemorySchema.parse(await this.artifacts.getJson(key))));
    return memories.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async deleteMemory(store: ApiMemoryStore, id: string): Promise<void> {
    await this.artifacts.delete(`${storePrefix(store.owner, store.id)}memories/${id}.json`);
  }

  /** Writes a version; a version is written once, and changed afterwards only by `redact`. */
  async putVersion(store: ApiMemoryStore, version: ApiMemoryVersion): Promise<void> {
    await this.artifacts.putJson(`${storePrefix(store.owner, store.id)}versions/${version.id}.json`, apiMemoryVersionSchema.parse(version));
  }

  async reachVersion(store: ApiMemoryStore, id: string): Promise<ApiMemoryVersion> {
    const raw = VERSION_ID.test(id) ? await this.artifacts.getJson(`${storePrefix(store.owner, store.id)}versions/${id}.json`) : undefined;
    if (!raw) throw notFound(`no memory version "${id}" in memory store "${store.id}"`);
    return apiMemoryVersionSchema.parse(raw);
  }

  /** The store's versions, newest first. */
  async listVersions(store: ApiMemoryStore): Promise<ApiMemoryVersion[]> {
    const keys = (await this.artifacts.list(`${storePrefix(store.owner, store.id)}versions/`)).map((k) => k.key).reverse();
    return Promise.all(keys.map(async (key) => apiMemoryVersionSchema.parse(await this.artifacts.getJson(key))));
  }
}
