import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { conflict, invalidField } from '@zero/agent/errors';
import { patchMetadata } from '@zero/integrations/environment-store';
import { ApiMemoryStores, newMemoryStoreId, type ApiMemory, type ApiMemoryStore, type ApiMemoryVersion } from '@zero/runtime/memory/api-stores';
import { apiMemoryPathOf, apiStoreRef, createApiMemory, deleteApiMemory, modifyApiMemory, type ApiMemoryChanges } from '@zero/runtime/memory/api-memory-changes';
import { FORBIDDEN_CHARACTERS, MAX_API_MEMORY_BYTES, apiMemoryPath } from '@zero/runtime/memory/api-memory-path';
import { memoryPrefix } from '@zero/runtime/memory/paths';
import { PathError, normalizeProjectPath } from '@zero/runtime/projects/paths';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';

const metadata = z.record(z.string().min(1).max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');
const metadataPatch = z.record(z.string().min(1).max(64), z.string().max(512).nullable()).refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');
const storeName = z.string().min(1).max(255).refine((name) => !FORBIDDEN_CHARACTERS.test(name), 'must not contain control characters');
const description = z.string().max(1024);
const MAX_CONTENT_BYTES = MAX_API_MEMORY_BYTES;
const content = z.string().refine((text) => Buffer.byteLength(text) <= MAX_CONTENT_BYTES, `must be at most ${MAX_CONTENT_BYTES} bytes`);
const memoryPath = apiMemoryPath;
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hexadecimal characters');
const view = z.enum(['basic', 'full']);

const storeCreate = z.strictObject({ name: storeName, description: description.optional(), metadata: metadata.optional() });
const storeUpdate = z.strictObject({ name: storeName.nullish(), description: description.nullish(), metadata: metadataPatch.nullish() });
const memoryCreate = z.strictObject({ path: memoryPath, content: content.nullable() });
const memoryUpdate = z.strictObject({ path: memoryPath.nullish(), content: content.nullish(), precondition: z.strictObject({ type: z.literal('content_sha256'), content_sha256: sha256.optional() }).optional() });
const viewQuery = z.object({ view: view.optional() });
const time = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'must be an RFC 3339 time');

/** Zero's memory path of an API path (`/a/b.md` → `a/b.md`). */
function zeroPath(path: string, field: string): string {
  try {
    return normalizeProjectPath(path.slice(1));
  } catch (error) {
    if (PathError.isInstance(error)) throw invalidField(field, (error as Error).message);
    throw error;
  }
}

const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** `BetaManagedAgentsMemoryStore`. */
function storeResource(store: ApiMemoryStore) {
  const { v: _v, owner: _o, ...rest } = store;
  return { type: 'memory_store' as const, ...rest };
}

/** `BetaManagedAgentsMemory`: `content` with `view=full`, else null. */
function memoryResource(memory: ApiMemory, text?: string) {
  const { v: _v, path, ...rest } = memory;
  return { type: 'memory' as const, ...rest, path: apiMemoryPathOf(path), content: text ?? null };
}

/** `BetaManagedAgentsMemoryVersion`. */
function versionResource(version: ApiMemoryVersion, full: boolean) {
  const { v: _v, content: text, ...rest } = version;
  return { type: 'memory_version' as const, ...rest, content: full ? text : null };
}

/** The API's 409s that name what blocked the write (`memory_path_conflict_error`, `memory_precondition_failed_error`). */
function conflictAnswer(c: Context, type: string, message: string, extra: Record<string, string> = {}) {
  return c.json({ type: 'error', error: { type, message, ...extra }, request_id: null }, 409);
}

/**
 * `/v1/memory_stores` (`client.beta.memoryStores`, `.memories`, `.memoryVersions`): each user's
 * stores, on Zero's memory (its files, locks and caps); every change to a memory is an immutable
 * version, which only `redact` changes afterwards. Another user's store is a 404.
 */
export function memoryStoreRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const stores = new ApiMemoryStores(deps.artifacts);
  const memoryOf = () => {
    if (!deps.memory) throw conflict('this deployment keeps no memory');
    return deps.memory;
  };
  const actor = (c: Context<Env>) => ({ type: 'user_actor' as const, user_id: c.get('user').id });
  const writable = async (owner: string, id: string) => {
    const store = await stores.reachStore(owner, id);
    if (store.archived_at) throw invalidField('memory_store_id', `memory store "${id}" is archived: its memories cannot be created or updated`);
    return store;
  };
  const changes = (store: ApiMemoryStore, c: Context<Env>): ApiMemoryChanges => ({ files: memoryOf(), records: stores, store, actor: actor(c) });

  app.post('/memory_stores', json(storeCreate), async (c) => {
    const params = c.req.valid('json');
    const now = new Date().toISOString();
    const store: ApiMemoryStore = { v: 1, id: newMemoryStoreId(), owner: c.get('user').id, name: params.name, description: params.description ?? '', metadata: params.metadata ?? {}, created_at: now, updated_at: now, archived_at: null };
    await stores.putStore(store);
    return c.json(storeResource(store));
  });

  app.get('/memory_stores', query(z.object({ ...pageQuery, include_archived: queryBoolean.optional(), 'created_at[gte]': time.optional(), 'created_at[lte]': time.optional() })), async (c) => {
    const q = c.req.valid('query');
    const gte = q['created_at[gte]'] ? Date.parse(q['created_at[gte]']) : -Infinity;
    const lte = q['created_at[lte]'] ? Date.parse(q['created_at[lte]']) : Infinity;
    const all = (await stores.listStores(c.get('user').id)).filter((s) => (q.include_archived || !s.archived_at) && Date.parse(s.created_at) >= gte && Date.parse(s.created_at) <= lte);
    const page = pageOf(all, q);
    return c.json({ data: page.data.map(storeResource), next_page: page.next_page });
  });

  app.get('/memory_stores/:id', async (c) => c.json(storeResource(await stores.reachStore(c.get('user').id, c.req.param('id')))));

  app.post('/memory_stores/:id', json(storeUpdate), async (c) => {
    const params = c.req.valid('json');
    const current = await writable(c.get('user').id, c.req.param('id'));
    const next: ApiMemoryStore = {
      ...current,
      name: params.name ?? current.name,
      description: params.description === undefined || params.description === null ? current.description : params.description,
      metadata: params.metadata === null ? {} : patchMetadata(current.metadata, params.metadata),
    };
    if (JSON.stringify(next) === JSON.stringify(current)) return c.json(storeResource(current));
    next.updated_at = new Date().toISOString();
    await stores.putStore(next);
    return c.json(storeResource(next));
  });

  app.post('/memory_stores/:id/archive', async (c) => {
    const current = await stores.reachStore(c.get('user').id, c.req.param('id'));
    if (current.archived_at) return c.json(storeResource(current));
    const now = new Date().toISOString();
    const next = { ...current, archived_at: now, updated_at: now };
    await stores.putStore(next);
    return c.json(storeResource(next));
  });

  app.delete('/memory_stores/:id', async (c) => {
    const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
    await deps.artifacts.deletePrefix(memoryPrefix(apiStoreRef(store)));
    await stores.deleteStore(store);
    return c.json({ type: 'memory_store_deleted' as const, id: store.id });
  });

  app.post('/memory_stores/:id/memories', query(viewQuery), json(memoryCreate), async (c) => {
    const params = c.req.valid('json');
    const store = await writable(c.get('user').id, c.req.param('id'));
    const path = zeroPath(params.path, 'path');
    const text = params.content ?? '';
    const clash = (await stores.listMemories(store)).find((m) => overlaps(m.path, path));
    if (clash) return conflictAnswer(c, 'memory_path_conflict_error', `${params.path} overlaps memory ${clash.id} at ${apiMemoryPathOf(clash.path)}`, { conflicting_path: apiMemoryPathOf(clash.path), conflicting_memory_id: clash.id });
    const record = await createApiMemory(changes(store, c), path, text);
    return c.json(memoryResource(record, c.req.valid('query').view === 'full' ? text : undefined));
  });

  app.get(
    '/memory_stores/:id/memories',
    query(z.object({ ...pageQuery, view: view.optional(), depth: z.coerce.number().int().min(0).optional(), path_prefix: z.string().max(1024).optional() })),
    async (c) => {
      const q = c.req.valid('query');
      const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
      if (q.path_prefix !== undefined && (!q.path_prefix.startsWith('/') || !q.path_prefix.endsWith('/'))) throw invalidField('path_prefix', 'must start and end with "/", e.g. /notes/');
      if (q.view === 'full' && (q.limit ?? 20) > 20) throw invalidField('limit', 'is at most 20 with view=full');
      const prefix = (q.path_prefix ?? '/').slice(1);
      const items: ({ kind: 'memory'; memory: ApiMemory } | { kind: 'prefix'; path: string })[] = [];
      const seen = new Set<string>();
      for (const m of await stores.listMemories(store)) {
        if (!m.path.startsWith(prefix)) continue;
        const rest = m.path.slice(prefix.length).split('/');
        if (q.depth && rest.length > q.depth) {
          const folder = `/${prefix}${rest.slice(0, q.depth).join('/')}/`;
          if (!seen.has(folder)) items.push({ kind: 'prefix', path: folder });
          seen.add(folder);
        } else items.push({ kind: 'memory', memory: m });
      }
      const page = pageOf(items, q);
      const data = await Promise.all(
        page.data.map(async (item) => {
          if (item.kind === 'prefix') return { type: 'memory_prefix' as const, path: item.path };
          const text = q.view === 'full' ? (await memoryOf().read(apiStoreRef(store), item.memory.path))?.content : undefined;
          return memoryResource(item.memory, text);
        }),
      );
      return c.json({ data, next_page: page.next_page });
    },
  );

  app.get('/memory_stores/:id/memories/:memory', query(viewQuery), async (c) => {
    const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
    const record = await stores.reachMemory(store, c.req.param('memory'));
    const text = c.req.valid('query').view === 'basic' ? undefined : ((await memoryOf().read(apiStoreRef(store), record.path))?.content ?? '');
    return c.json(memoryResource(record, text));
  });

  app.post('/memory_stores/:id/memories/:memory', query(viewQuery), json(memoryUpdate), async (c) => {
    const params = c.req.valid('json');
    const store = await writable(c.get('user').id, c.req.param('id'));
    const current = await stores.reachMemory(store, c.req.param('memory'));
    const path = params.path ? zeroPath(params.path, 'path') : current.path;
    const currentText = (await memoryOf().read(apiStoreRef(store), current.path))?.content ?? '';
    const text = params.content ?? currentText;
    const unchanged = path === current.path && text === currentText;
    const expected = params.precondition?.content_sha256;
    // A precondition that fails is still met when the memory already is what was asked for.
    if (expected !== undefined && expected !== current.content_sha256 && !unchanged) {
      return conflictAnswer(c, 'memory_precondition_failed_error', `memory ${current.id} no longer has content_sha256 ${expected}; retrieve it and retry`);
    }
    const wantFull = c.req.valid('query').view === 'full';
    if (unchanged) return c.json(memoryResource(current, wantFull ? currentText : undefined));
    if (path !== current.path) {
      const clash = (await stores.listMemories(store)).find((m) => m.id !== current.id && overlaps(m.path, path));
      if (clash) return conflictAnswer(c, 'memory_path_conflict_error', `${params.path} overlaps memory ${clash.id} at ${apiMemoryPathOf(clash.path)}`, { conflicting_path: apiMemoryPathOf(clash.path), conflicting_memory_id: clash.id });
    }
    const next = await modifyApiMemory(changes(store, c), current, currentText, { path, content: text });
    return c.json(memoryResource(next, wantFull ? text : undefined));
  });

  app.delete('/memory_stores/:id/memories/:memory', query(z.object({ expected_content_sha256: sha256.optional() })), async (c) => {
    const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
    const current = await stores.reachMemory(store, c.req.param('memory'));
    const expected = c.req.valid('query').expected_content_sha256;
    if (expected !== undefined && expected !== current.content_sha256) return conflictAnswer(c, 'memory_precondition_failed_error', `memory ${current.id} no longer has content_sha256 ${expected}; nothing was deleted`);
    await deleteApiMemory(changes(store, c), current);
    return c.json({ type: 'memory_deleted' as const, id: current.id });
  });

  app.get(
    '/memory_stores/:id/memory_versions',
    query(
      z.object({
        ...pageQuery,
        view: view.optional(),
        memory_id: z.string().max(200).optional(),
        operation: z.enum(['created', 'modified', 'deleted']).optional(),
        session_id: z.string().max(200).optional(),
        api_key_id: z.string().max(200).optional(),
        service_account_id: z.string().max(200).optional(),
        'created_at[gte]': time.optional(),
        'created_at[lte]': time.optional(),
      }),
    ),
    async (c) => {
      const q = c.req.valid('query');
      const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
      if (q.view === 'full' && (q.limit ?? 20) > 20) throw invalidField('limit', 'is at most 20 with view=full');
      const gte = q['created_at[gte]'] ? Date.parse(q['created_at[gte]']) : -Infinity;
      const lte = q['created_at[lte]'] ? Date.parse(q['created_at[lte]']) : Infinity;
      // Zero records each change as its user's (`user_actor`): filters by session, API key or service account match none.
      const byOtherActor = q.session_id !== undefined || q.api_key_id !== undefined || q.service_account_id !== undefined;
      const all = byOtherActor
        ? []
        : (await stores.listVersions(store)).filter(
            (v) => (!q.memory_id || v.memory_id === q.memory_id) && (!q.operation || v.operation === q.operation) && Date.parse(v.created_at) >= gte && Date.parse(v.created_at) <= lte,
          );
      const page = pageOf(all, q);
      return c.json({ data: page.data.map((v) => versionResource(v, q.view === 'full')), next_page: page.next_page });
    },
  );

  app.get('/memory_stores/:id/memory_versions/:version', query(viewQuery), async (c) => {
    const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
    return c.json(versionResource(await stores.reachVersion(store, c.req.param('version')), c.req.valid('query').view !== 'basic'));
  });

  app.post('/memory_stores/:id/memory_versions/:version/redact', async (c) => {
    const store = await stores.reachStore(c.get('user').id, c.req.param('id'));
    const current = await stores.reachVersion(store, c.req.param('version'));
    if (current.redacted_at) return c.json(versionResource(current, true));
    const live = await stores.reachMemory(store, current.memory_id).catch(() => undefined);
    if (live?.memory_version_id === current.id) {
      throw conflict(`version ${current.id} holds the current content of memory ${live.id}: update or delete the memory first, then redact this version`);
    }
    const now = new Date().toISOString();
    const redacted: ApiMemoryVersion = { ...current, content: null, content_sha256: null, content_size_bytes: null, path: null, redacted_at: now, redacted_by: actor(c) };
    await stores.putVersion(store, redacted);
    return c.json(versionResource(redacted, true));
  });

  return app;
}
