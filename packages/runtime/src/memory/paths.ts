import { projectIdSchema } from '@zero/agent/wire';
import { MAX_KEY_BYTES, PathError, normalizeProjectPath } from '../projects/paths';

/** A memory store: one person's, one project's, or one made through the Managed Agents API (`memstore_…`). */
export type MemoryStoreRef = { kind: 'user'; userId: string } | { kind: 'project'; projectId: string } | { kind: 'store'; storeId: string };

/** The folder the memory tool shows the model, as Anthropic's memory tool does. */
export const MEMORY_ROOT = '/memories';

/** Where memory stores attached to a session (Managed Agents `resources`) are mounted, each under its own folder. */
export const ATTACHED_ROOT = '/mnt/memory';

/**
 * A store's key prefix in the bucket, ending in "/": `memories/users/<id>/`
 * or `memories/projects/<owner>/<repo>/`. A user id may hold any character
 * but spaces and "#", so it is percent-encoded (dots too) into one segment
 * that can never be "." or "..".
 */
export function memoryPrefix(store: MemoryStoreRef): string {
  if (store.kind === 'project') return `memories/projects/${projectIdSchema.parse(store.projectId)}/`;
  if (store.kind === 'store') {
    if (!/^memstore_[a-z0-9]{1,64}$/.test(store.storeId)) throw new PathError('not a memory store id');
    return `memories/stores/${store.storeId}/`;
  }
  if (!store.userId) throw new PathError('the user id is empty');
  return `memories/users/${encodeURIComponent(store.userId).replaceAll('.', '%2E')}/`;
}

/** A store's name for messages and the lock: `user:<id>` or `project:<owner>/<repo>`. */
export function memoryStoreName(store: MemoryStoreRef): string {
  if (store.kind === 'store') return `store:${store.storeId}`;
  return store.kind === 'user' ? `user:${store.userId}` : `project:${store.projectId}`;
}

/**
 * A path the model gave (`/memories/notes/today.md`) as a path inside the
 * store (`notes/today.md`), through the same normaliser as every file tool.
 * `/memories` itself is the store's root (""), allowed where `root` says so.
 */
export function memoryPathOf(input: string, options: { root?: boolean } = {}): string {
  if (typeof input !== 'string') throw new PathError('the path is not text');
  const trimmed = input.endsWith('/') && input.length > 1 ? input.slice(0, -1) : input;
  if (trimmed === MEMORY_ROOT) {
    if (options.root) return '';
    throw new PathError(`"${MEMORY_ROOT}" is the memory folder itself; name a file inside it, e.g. "${MEMORY_ROOT}/notes.md"`);
  }
  if (!trimmed.startsWith(`${MEMORY_ROOT}/`)) throw new PathError(`memory paths start with "${MEMORY_ROOT}/", e.g. "${MEMORY_ROOT}/notes.md"`);
  return normalizeProjectPath(trimmed.slice(MEMORY_ROOT.length + 1));
}

/** The key of a path inside a store, checked against S3's key length. */
export function memoryKey(store: MemoryStoreRef, path: string): string {
  const key = memoryPrefix(store) + normalizeProjectPath(path);
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new PathError(`the path is too long (the key would be over ${MAX_KEY_BYTES} bytes)`);
  return key;
}

/** How the model sees a path inside the store. */
export const shownPath = (path: string) => (path ? `${MEMORY_ROOT}/${path}` : MEMORY_ROOT);
