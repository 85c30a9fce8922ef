import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { createS3Client } from '@zero/runtime/store/clients';
import { JsonCollection } from '@zero/runtime/store/json-collection';
import { ZeroError } from '@zero/agent/errors';
import { startLocalStack, type LocalStack } from '../local/stack';

// The one store behind hooks, schedules, subscriptions and MCP servers, against s3rver.
const itemSchema = z.object({ v: z.literal(1), id: z.string(), colour: z.string(), created_at: z.string(), updated_at: z.string() });
type Item = z.infer<typeof itemSchema>;
const idSchema = z.string().regex(/^[a-z][a-z0-9-]{0,20}$/);

let stack: LocalStack;
let artifacts: ArtifactStore;

beforeAll(async () => {
  stack = await startLocalStack();
  artifacts = new ArtifactStore(createS3Client(stack.store), stack.store.bucket);
});
afterAll(async () => stack?.stop());

const collection = (prefix: string, cacheMs?: number) =>
  new JsonCollection<Item>(artifacts, { prefix, id: idSchema, item: itemSchema, noun: 'widget', field: 'widget_id', ...(cacheMs ? { cacheMs } : {}) });

describe('JsonCollection', () => {
  it('creates, replaces (keeping created_at), lists and deletes one object per id', async () => {
    const widgets = collection('widgets/');
    const first = await widgets.put('red', (stamps) => ({ v: 1, id: 'red', colour: 'red', ...stamps }));
    expect(first.created).toBe(true);
    expect(await artifacts.getJson('widgets/red.json')).toEqual(first.item);

    const second = await widgets.put('red', (stamps) => ({ v: 1, id: 'red', colour: 'crimson', ...stamps }));
    expect(second.created).toBe(false);
    expect(second.item.created_at).toBe(first.item.created_at);
    expect(await widgets.get('red')).toMatchObject({ colour: 'crimson' });

    await widgets.put('blue', (stamps) => ({ v: 1, id: 'blue', colour: 'blue', ...stamps }));
    expect((await widgets.list()).map((w) => w.id)).toEqual(['blue', 'red']);

    expect(await widgets.delete('red')).toBe(true);
    expect(await widgets.delete('red')).toBe(false);
    expect(await widgets.get('red')).toBeUndefined();
    expect((await widgets.list()).map((w) => w.id)).toEqual(['blue']);
  });

  it('answers a malformed id and a missing one alike, with a 404 naming the field', async () => {
    const widgets = collection('malformed/');
    expect(await widgets.get('../etc/passwd')).toBeUndefined();
    for (const id of ['../etc/passwd', 'missing']) {
      const error = await widgets.require(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ZeroError);
      expect(error).toMatchObject({ status: 404, message: `no widget "${id}"` });
    }
    await expect(widgets.put('../x', (stamps) => ({ v: 1, id: '../x', colour: 'x', ...stamps }))).rejects.toThrow();
    expect(await artifacts.list('malformed/')).toEqual([]);
  });

  it('skips an object that no longer parses instead of failing the list', async () => {
    const widgets = collection('corrupt/');
    await widgets.put('good', (stamps) => ({ v: 1, id: 'good', colour: 'green', ...stamps }));
    await artifacts.putJson('corrupt/bad.json', { v: 2, id: 'bad' });
    expect(await widgets.get('bad')).toBeUndefined();
    expect((await widgets.list()).map((w) => w.id)).toEqual(['good']);
  });

  it('with a cache, sees its own change at once and another instance’s after the cache expires', async () => {
    const mine = collection('cached/', 60_000);
    const other = collection('cached/');
    expect(await mine.list()).toEqual([]);
    await other.put('late', (stamps) => ({ v: 1, id: 'late', colour: 'grey', ...stamps }));
    expect(await mine.list()).toEqual([]); // kept: another instance's write is not seen yet
    await mine.put('own', (stamps) => ({ v: 1, id: 'own', colour: 'gold', ...stamps }));
    expect((await mine.list()).map((w) => w.id).sort()).toEqual(['late', 'own']);
  });
});
