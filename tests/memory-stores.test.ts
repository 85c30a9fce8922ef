import { createHash } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import type { Harness } from './support/harness';
import { sdkClientAs, startHarnessWithSdk } from './support/sdk';
import { apiErrorSchema, valid } from './support/managed-agents-schemas';
import {
  deletedMemorySchema,
  deletedMemoryStoreSchema,
  memoryConflictSchema,
  memoryPageSchema,
  memorySchema,
  memoryStorePageSchema,
  memoryStoreSchema,
  memoryVersionPageSchema,
  memoryVersionSchema,
} from './support/memory-store-schemas';

/** Parses an answer with the schema written from the SDK's types. */
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const errorBody = (e: unknown) => (e as InstanceType<typeof Anthropic.APIError>).error;

describe('memory stores through the official SDK, on Zero memory, with immutable versions', () => {
  let h: Harness;
  let client: Anthropic;
  beforeAll(async () => ({ h, client } = await startHarnessWithSdk()));
  afterAll(() => h.close());

  it('creates a store and memories, renames and edits them under preconditions, lists them by folder, and keeps every change as a version', async () => {
    const store = valid(memoryStoreSchema, await client.beta.memoryStores.create({ name: 'Project notes', description: 'What we learnt', metadata: { team: 'qa' } }));
    expect(store).toMatchObject({ name: 'Project notes', description: 'What we learnt', archived_at: null });
    expect(valid(memoryStoreSchema, await client.beta.memoryStores.retrieve(store.id))).toEqual(store);
    expect(valid(memoryStoreSchema, await client.beta.memoryStores.update(store.id, { description: '', metadata: { team: null, owner: 'dev' } }))).toMatchObject({ description: '', metadata: { owner: 'dev' } });
    expect(valid(memoryStorePageSchema, await client.beta.memoryStores.list()).data.map((s) => s.id)).toContain(store.id);

    const notes = valid(memorySchema, await client.beta.memoryStores.memories.create(store.id, { path: '/projects/foo/notes.md', content: 'first' }));
    expect(notes).toMatchObject({ path: '/projects/foo/notes.md', content: null, content_sha256: sha('first'), content_size_bytes: 5 });
    const todo = valid(memorySchema, await client.beta.memoryStores.memories.create(store.id, { path: '/todo.md', content: 'ship it', view: 'full' }));
    expect(todo.content).toBe('ship it');
    // The file is Zero memory: the store's folder in the bucket holds it.
    expect(await h.server.runtime.artifacts.getText(`memories/stores/${store.id}/projects/foo/notes.md`)).toBe('first');

    // A path another memory holds, or one inside it, is a conflict naming that memory.
    for (const path of ['/todo.md', '/todo.md/inner.md', '/projects']) {
      const clash = await client.beta.memoryStores.memories.create(store.id, { path, content: 'x' }).catch((e: unknown) => e);
      expect(clash, path).toBeInstanceOf(Anthropic.ConflictError);
      expect(valid(memoryConflictSchema, errorBody(clash)).error).toMatchObject({ type: 'memory_path_conflict_error' });
    }

    // An edit from a stale hash is refused; from the current hash it applies and makes a version.
    const stale = await client.beta.memoryStores.memories.update(notes.id, { memory_store_id: store.id, content: 'lost', precondition: { type: 'content_sha256', content_sha256: sha('old') } }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(Anthropic.ConflictError);
    expect(valid(memoryConflictSchema, errorBody(stale)).error.type).toBe('memory_precondition_failed_error');
    const edited = valid(memorySchema, await client.beta.memoryStores.memories.update(notes.id, { memory_store_id: store.id, content: 'second', path: '/projects/foo/renamed.md', precondition: { type: 'content_sha256', content_sha256: sha('first') } }));
    expect(edited).toMatchObject({ id: notes.id, path: '/projects/foo/renamed.md', content_sha256: sha('second') });
    expect(edited.memory_version_id).not.toBe(notes.memory_version_id);
    // An update that changes nothing makes no version.
    expect(valid(memorySchema, await client.beta.memoryStores.memories.update(notes.id, { memory_store_id: store.id, content: 'second' })).memory_version_id).toBe(edited.memory_version_id);
    expect(valid(memorySchema, await client.beta.memoryStores.memories.retrieve(notes.id, { memory_store_id: store.id }))).toMatchObject({ content: 'second', path: '/projects/foo/renamed.md' });

    const top = valid(memoryPageSchema, await client.beta.memoryStores.memories.list(store.id, { depth: 1 })).data;
    expect(top).toEqual([{ type: 'memory_prefix', path: '/projects/' }, expect.objectContaining({ type: 'memory', path: '/todo.md', content: null })]);
    const inside = valid(memoryPageSchema, await client.beta.memoryStores.memories.list(store.id, { path_prefix: '/projects/', view: 'full' })).data;
    expect(inside).toEqual([expect.objectContaining({ id: notes.id, content: 'second' })]);

    const deleteStale = await client.beta.memoryStores.memories.delete(todo.id, { memory_store_id: store.id, expected_content_sha256: sha('nope') }).catch((e: unknown) => e);
    expect(deleteStale).toBeInstanceOf(Anthropic.ConflictError);
    expect(valid(deletedMemorySchema, await client.beta.memoryStores.memories.delete(todo.id, { memory_store_id: store.id, expected_content_sha256: sha('ship it') }))).toEqual({ id: todo.id, type: 'memory_deleted' });
    expect(await client.beta.memoryStores.memories.retrieve(todo.id, { memory_store_id: store.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);

    // Every change, newest first, each as it was then.
    const versions = [];
    for await (const v of client.beta.memoryStores.memoryVersions.list(store.id, { limit: 2, view: 'full' })) versions.push(valid(memoryVersionSchema, v));
    expect(versions.map((v) => [v.operation, v.path, v.content])).toEqual([
      ['deleted', '/todo.md', null],
      ['modified', '/projects/foo/renamed.md', 'second'],
      ['created', '/todo.md', 'ship it'],
      ['created', '/projects/foo/notes.md', 'first'],
    ]);
    expect(versions.every((v) => v.created_by?.type === 'user_actor')).toBe(true);
    const ofNotes = valid(memoryVersionPageSchema, await client.beta.memoryStores.memoryVersions.list(store.id, { memory_id: notes.id })).data;
    expect(ofNotes.map((v) => [v.operation, v.content])).toEqual([['modified', null], ['created', null]]);

    // Redacting the first version of the notes wipes its content and path, and nothing else changes.
    const first = versions.at(-1)!;
    const redacted = valid(memoryVersionSchema, await client.beta.memoryStores.memoryVersions.redact(first.id, { memory_store_id: store.id }));
    expect(redacted).toMatchObject({ id: first.id, content: null, path: null, content_sha256: null, content_size_bytes: null, redacted_by: { type: 'user_actor', user_id: 'dev' } });
    expect(redacted.redacted_at).not.toBeNull();
    expect(valid(memoryVersionSchema, await client.beta.memoryStores.memoryVersions.retrieve(first.id, { memory_store_id: store.id }))).toEqual(redacted);
    const stored = (await h.server.runtime.artifacts.list('memory-stores/')).find((o) => o.key.endsWith(`/${first.id}.json`))!;
    expect(await h.server.runtime.artifacts.getText(stored.key)).not.toMatch(/first|notes\.md/);
    // The version that holds a memory's current content is not redacted out from under it.
    const current = await client.beta.memoryStores.memoryVersions.redact(edited.memory_version_id, { memory_store_id: store.id }).catch((e: unknown) => e);
    expect(current).toBeInstanceOf(Anthropic.ConflictError);
    expect(valid(apiErrorSchema, errorBody(current)).error.message).toContain('holds the current content');

    // Archived, the store is read-only; deleted, it and its files are gone.
    expect(valid(memoryStoreSchema, await client.beta.memoryStores.archive(store.id)).archived_at).not.toBeNull();
    const late = await client.beta.memoryStores.memories.create(store.id, { path: '/late.md', content: 'x' }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(Anthropic.BadRequestError);
    expect(valid(memoryStorePageSchema, await client.beta.memoryStores.list()).data.map((s) => s.id)).not.toContain(store.id);
    expect(valid(deletedMemoryStoreSchema, await client.beta.memoryStores.delete(store.id))).toEqual({ id: store.id, type: 'memory_store_deleted' });
    expect(await h.server.runtime.artifacts.list(`memories/stores/${store.id}/`)).toEqual([]);
    expect(await client.beta.memoryStores.retrieve(store.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("refuses malformed paths and oversized content naming the field, and keeps each user's stores theirs", async () => {
    const store = await client.beta.memoryStores.create({ name: 'Refusals' });
    for (const [path, message] of [
      ['notes.md', 'must start with "/"'],
      ['/a//b.md', 'must have 1 to 20 segments'],
      ['/a/../b.md', 'must have 1 to 20 segments'],
      ['/a\u0000b', 'must not contain control or format characters'],
    ] as const) {
      const error = await client.beta.memoryStores.memories.create(store.id, { path, content: 'x' }).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(Anthropic.BadRequestError);
      expect(valid(apiErrorSchema, errorBody(error)).error.message).toContain(message);
    }
    const huge = await client.beta.memoryStores.memories.create(store.id, { path: '/huge.md', content: 'x'.repeat(102_401) }).catch((e: unknown) => e);
    expect(valid(apiErrorSchema, errorBody(huge)).error.message).toContain('content');
    expect(valid(memoryPageSchema, await client.beta.memoryStores.memories.list(store.id)).data).toEqual([]);

    const mallory = await sdkClientAs(h, 'mallory');
    const memory = await client.beta.memoryStores.memories.create(store.id, { path: '/secret.md', content: 'mine' });
    const attempts: (() => Promise<unknown>)[] = [
      () => mallory.beta.memoryStores.retrieve(store.id),
      () => mallory.beta.memoryStores.memories.retrieve(memory.id, { memory_store_id: store.id }),
      () => mallory.beta.memoryStores.memories.update(memory.id, { memory_store_id: store.id, content: 'theirs' }),
      () => mallory.beta.memoryStores.memoryVersions.list(store.id),
      () => mallory.beta.memoryStores.memoryVersions.redact(memory.memory_version_id, { memory_store_id: store.id }),
      () => mallory.beta.memoryStores.delete(store.id),
    ];
    for (const attempt of attempts) expect(await attempt().catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect(valid(memorySchema, await client.beta.memoryStores.memories.retrieve(memory.id, { memory_store_id: store.id })).content).toBe('mine');
  });
});
