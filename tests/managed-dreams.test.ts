import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessQueue } from '@zero/runtime/sessions/queue';
import { DEV, openSessionAs, storeEnv, type Harness } from './support/harness';
import { sdkClientAs, startHarnessWithSdk } from './support/sdk';
import { apiErrorSchema, valid } from './support/managed-agents-schemas';
import { memoryPageSchema, memorySchema, memoryStorePageSchema, memoryVersionPageSchema, memoryVersionSchema } from './support/memory-store-schemas';
import { dreamPageSchema, dreamSchema, storeHeldErrorSchema } from './support/dream-schemas';

const errorBody = (e: unknown) => (e as InstanceType<typeof Anthropic.APIError>).error;
const MODEL = 'claude-sonnet-4-6';

describe('dreams through the official SDK: a memory store consolidated by the worker into new versions', () => {
  let h: Harness;
  let client: Anthropic;
  beforeAll(async () => ({ h, client } = await startHarnessWithSdk()));
  afterAll(() => h.close());

  /** Every job the worker (the in-process queue) was given has run. */
  const workerIdle = () => (h.server.runtime.queue as InProcessQueue).idle();
  /** A store with these memories (path → content). */
  const storeWith = async (name: string, memories: Record<string, string>) => {
    const store = await client.beta.memoryStores.create({ name });
    for (const [path, content] of Object.entries(memories)) await client.beta.memoryStores.memories.create(store.id, { path, content });
    return store;
  };
  /** The store's memories as path → content. */
  const contentsOf = async (storeId: string) => {
    const page = valid(memoryPageSchema, await client.beta.memoryStores.memories.list(storeId, { view: 'full' }));
    return Object.fromEntries(page.data.map((m) => [m.path, m.type === 'memory' ? m.content : undefined]));
  };
  const versionsOf = async (storeId: string) => valid(memoryVersionPageSchema, await client.beta.memoryStores.memoryVersions.list(storeId, { limit: 100 })).data;
  const answer = (memories: { path: string; content: string }[]) => JSON.stringify({ memories });

  it('create_new: the worker writes the model\'s consolidated set to a new store, the input store stays as it was; retrieve, list and archive show it', async () => {
    const input = await storeWith('Team notes', { '/deploys.md': 'Deploy on Tuesdays.', '/deploy-day.md': 'We deploy on tuesday', '/old.md': 'The staging host is s1 (retired).' });
    const before = await contentsOf(input.id);
    h.fake.script({ text: answer([{ path: '/process/deploys.md', content: 'Deploys happen on Tuesdays.' }]), usage: { input_tokens: 1200, output_tokens: 80 } });

    const created = valid(dreamSchema, await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: input.id }], model: MODEL, instructions: 'Merge duplicates.' }));
    expect(created).toMatchObject({
      status: 'pending',
      outputs: [],
      model: { id: MODEL, speed: 'standard' },
      output_behavior: { type: 'create_new' },
      instructions: 'Merge duplicates.',
      inputs: [{ type: 'memory_store', memory_store_id: input.id }],
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      ended_at: null,
      archived_at: null,
      error: null,
    });

    await workerIdle();
    const done = valid(dreamSchema, await client.beta.dreams.retrieve(created.id));
    expect(done).toMatchObject({ status: 'completed', error: null, usage: { input_tokens: 1200, output_tokens: 80 } });
    expect(done.ended_at).not.toBeNull();
    expect(done.outputs).toHaveLength(1);
    const output = done.outputs[0]!.memory_store_id;
    expect(output).not.toBe(input.id);
    expect(await contentsOf(output)).toEqual({ '/process/deploys.md': 'Deploys happen on Tuesdays.' });
    expect(await contentsOf(input.id)).toEqual(before);

    // The model saw every memory and the guidance, fenced as data.
    const request = h.fake.requests.at(-1)!;
    expect(JSON.stringify(request.body.system)).toContain('consolidate a memory store');
    const prompt = JSON.stringify(request.body.messages);
    for (const text of ['Deploy on Tuesdays.', 'We deploy on tuesday', 's1 (retired)', 'Merge duplicates.', 'outside-data']) expect(prompt).toContain(text);
    // Its spend counts in its owner's day.
    expect((await (await h.server.runtime.budgets!()).today('user', 'dev')).spent_usd).toBeGreaterThan(0);

    // list: newest first, filtered by status; archive hides it from the default list but not from retrieve.
    const listed = valid(dreamPageSchema, await client.beta.dreams.list());
    expect(listed.data.map((d) => d.id)).toContain(created.id);
    expect(valid(dreamPageSchema, await client.beta.dreams.list({ statuses: ['completed'] })).data.map((d) => d.id)).toContain(created.id);
    expect(valid(dreamPageSchema, await client.beta.dreams.list({ statuses: ['failed', 'canceled'] })).data.map((d) => d.id)).not.toContain(created.id);
    const archived = valid(dreamSchema, await client.beta.dreams.archive(created.id));
    expect(archived.archived_at).not.toBeNull();
    expect(valid(dreamSchema, await client.beta.dreams.archive(created.id))).toEqual(archived);
    expect(valid(dreamPageSchema, await client.beta.dreams.list()).data.map((d) => d.id)).not.toContain(created.id);
    expect(valid(dreamPageSchema, await client.beta.dreams.list({ include_archived: true })).data.map((d) => d.id)).toContain(created.id);
    expect(valid(dreamSchema, await client.beta.dreams.retrieve(created.id))).toEqual(archived);
    // A completed dream cannot be canceled.
    const late = await client.beta.dreams.cancel(created.id).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(Anthropic.BadRequestError);
    expect(valid(apiErrorSchema, errorBody(late)).error.message).toContain('is completed');
  });

  it('update_existing with sessions: each change is a new version of the same store and every old version is still readable', async () => {
    const store = await storeWith('Mine', { '/a.md': 'keep me', '/b.md': 'old b', '/c.md': 'stale c' });
    const sessionId = await openSessionAs(h, DEV, 'a chat to learn from');
    h.fake.script({ text: `Here it is:\n${answer([{ path: '/a.md', content: 'keep me' }, { path: '/b.md', content: 'new b' }, { path: '/d/lesson.md', content: 'learnt' }])}` });

    const created = valid(dreamSchema, await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }, { type: 'sessions', session_ids: [sessionId] }], model: { id: MODEL, speed: 'standard' }, output_behavior: { type: 'update_existing', memory_store_id: store.id } }));
    expect(created.inputs).toEqual([{ type: 'memory_store', memory_store_id: store.id }, { type: 'sessions', session_ids: [sessionId] }]);
    expect(created.output_behavior).toEqual({ type: 'update_existing', memory_store_id: store.id });
    await workerIdle();
    const done = valid(dreamSchema, await client.beta.dreams.retrieve(created.id));
    expect(done).toMatchObject({ status: 'completed', outputs: [{ type: 'memory_store', memory_store_id: store.id }] });
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain(`Session ${sessionId}`);

    expect(await contentsOf(store.id)).toEqual({ '/a.md': 'keep me', '/b.md': 'new b', '/d/lesson.md': 'learnt' });
    const versions = await versionsOf(store.id);
    // Unchanged /a.md made no version; /b.md was modified, /c.md deleted, /d/lesson.md created.
    expect(versions.map((v) => [v.operation, v.path]).slice(0, 3).sort()).toEqual([['created', '/d/lesson.md'], ['deleted', '/c.md'], ['modified', '/b.md']]);
    const oldB = versions.find((v) => v.operation === 'created' && v.path === '/b.md')!;
    expect(valid(memoryVersionSchema, await client.beta.memoryStores.memoryVersions.retrieve(oldB.id, { memory_store_id: store.id })).content).toBe('old b');
    const oldC = versions.find((v) => v.operation === 'created' && v.path === '/c.md')!;
    expect(valid(memoryVersionSchema, await client.beta.memoryStores.memoryVersions.retrieve(oldC.id, { memory_store_id: store.id })).content).toBe('stale c');
  });

  it('update_existing: a memory whose file is already gone (a delete that stopped half way) is deleted as the API deletes it, and the dream completes', async () => {
    const store = await storeWith('Half deleted', { '/keep.md': 'Keep this.', '/gone.md': 'Its file is gone.' });
    await h.server.runtime.artifacts.delete(`memories/stores/${store.id}/gone.md`);
    h.fake.script({ text: answer([{ path: '/keep.md', content: 'Keep this.' }]) });

    const created = valid(dreamSchema, await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: { type: 'update_existing', memory_store_id: store.id } }));
    await workerIdle();
    expect(valid(dreamSchema, await client.beta.dreams.retrieve(created.id))).toMatchObject({ status: 'completed', error: null });
    expect(await contentsOf(store.id)).toEqual({ '/keep.md': 'Keep this.' });
    expect((await versionsOf(store.id)).filter((v) => v.operation === 'deleted').map((v) => v.path)).toEqual(['/gone.md']);
  });

  it('an answer that is not a valid set of memories fails the dream with a clear error and changes nothing', async () => {
    const store = await storeWith('Fragile', { '/x.md': 'x' });
    const storesBefore = valid(memoryStorePageSchema, await client.beta.memoryStores.list({ limit: 1000 })).data.length;
    const versionsBefore = await versionsOf(store.id);
    for (const [text, message] of [
      ['I tidied your memories, they look great now!', 'no JSON object'],
      [answer([{ path: '../etc/passwd', content: 'x' }]), 'must start with "/"'],
      [answer([{ path: '/a', content: 'x' }, { path: '/a/b.md', content: 'y' }]), '/a/b.md lies inside /a'],
      [answer([{ path: '/a\\..\\b.md', content: 'x' }]), 'backslash'],
      [answer([{ path: '/%2e%2e/b.md', content: 'x' }]), 'percent escape'],
    ] as const) {
      for (const behavior of ['create_new', 'update_existing'] as const) {
        h.fake.script({ text });
        const created = await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: behavior === 'create_new' ? { type: behavior } : { type: behavior, memory_store_id: store.id } });
        await workerIdle();
        const failed = valid(dreamSchema, await client.beta.dreams.retrieve(created.id));
        expect(failed, `${behavior}: ${text}`).toMatchObject({ status: 'failed', outputs: [], error: { type: 'invalid_output' } });
        expect(failed.error!.message).toContain("the model's answer is not a consolidated set of memories");
        expect(failed.error!.message).toContain(message);
        expect(failed.error!.message).toContain('nothing was written');
        expect(failed.usage.output_tokens).toBeGreaterThan(0);
      }
    }
    // A model call that fails (after the SDK's retries) fails the dream as model_error, also writing nothing.
    h.fake.script({ status: 400 });
    const refused = await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: { type: 'update_existing', memory_store_id: store.id } });
    await workerIdle();
    const failed = valid(dreamSchema, await client.beta.dreams.retrieve(refused.id));
    expect(failed).toMatchObject({ status: 'failed', outputs: [], error: { type: 'model_error' } });
    expect(failed.error!.message).toContain('the model call failed: the model API failed (HTTP 400)');
    expect(failed.error!.message).not.toContain('sk-ant');
    expect(await contentsOf(store.id)).toEqual({ '/x.md': 'x' });
    expect(await versionsOf(store.id)).toEqual(versionsBefore);
    expect(valid(memoryStorePageSchema, await client.beta.memoryStores.list({ limit: 1000 })).data).toHaveLength(storesBefore);
    expect(valid(dreamPageSchema, await client.beta.dreams.list({ statuses: ['failed'], limit: 100 })).data.length).toBeGreaterThanOrEqual(11);
  });

  it('cancel stops a running dream: its model call is abandoned and nothing is written; a running dream holds its store and cannot be archived', async () => {
    const store = await storeWith('Busy', { '/busy.md': 'busy' });
    const calls = h.fake.requests.length;
    h.fake.script({ hang: true });
    const created = await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: { type: 'update_existing', memory_store_id: store.id } });
    // The dream is running once its model call has reached the model.
    while (h.fake.requests.length === calls) await new Promise((r) => setTimeout(r, 10));
    expect(valid(dreamSchema, await client.beta.dreams.retrieve(created.id)).status).toBe('running');

    const held = await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: { type: 'update_existing', memory_store_id: store.id } }).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(Anthropic.ConflictError);
    expect(valid(storeHeldErrorSchema, errorBody(held)).error.message).toContain(created.id);
    const early = await client.beta.dreams.archive(created.id).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(Anthropic.BadRequestError);
    expect(valid(apiErrorSchema, errorBody(early)).error.message).toContain('cancel it before archiving it');

    const canceled = valid(dreamSchema, await client.beta.dreams.cancel(created.id));
    expect(canceled).toMatchObject({ status: 'canceled', outputs: [], error: null });
    expect(canceled.ended_at).not.toBeNull();
    // The worker sees the cancel, abandons the call and ends: the dream stays canceled, the store as it was.
    await workerIdle();
    expect(valid(dreamSchema, await client.beta.dreams.retrieve(created.id))).toMatchObject({ status: 'canceled', outputs: [] });
    expect(await contentsOf(store.id)).toEqual({ '/busy.md': 'busy' });
    expect(valid(dreamSchema, await client.beta.dreams.cancel(created.id)).status).toBe('canceled');
    expect(valid(dreamSchema, await client.beta.dreams.archive(created.id)).archived_at).not.toBeNull();
  });

  it('refuses malformed requests naming the field', async () => {
    const store = await storeWith('Refusals', {});
    const cases: [Record<string, unknown>, string][] = [
      [{ inputs: [], model: MODEL }, 'inputs'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }, { type: 'memory_store', memory_store_id: store.id }], model: MODEL }, 'exactly one memory_store'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: { id: MODEL, speed: 'fast' } }, 'standard'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, instructions: 'x'.repeat(4097) }, 'instructions'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }, { type: 'sessions', session_ids: ['s', 's'] }], model: MODEL }, 'must not repeat'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: '' }, 'model'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: { type: 'update_existing', memory_store_id: 'memstore_another' } }, 'output_behavior.memory_store_id: must be the memory store of inputs'],
      [{ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL, output_behavior: { type: 'update_existing' } }, 'output_behavior'],
    ];
    for (const [body, message] of cases) {
      const error = await client.beta.dreams.create(body as never).catch((e: unknown) => e);
      expect(error, message).toBeInstanceOf(Anthropic.BadRequestError);
      expect(valid(apiErrorSchema, errorBody(error)).error.message).toContain(message);
    }
    await client.beta.memoryStores.archive(store.id);
    const archived = await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL }).catch((e: unknown) => e);
    expect(valid(apiErrorSchema, errorBody(archived)).error.message).toContain('is archived');
    const badStatus = await client.beta.dreams.list({ statuses: ['dreaming' as never] }).catch((e: unknown) => e);
    expect(valid(apiErrorSchema, errorBody(badStatus)).error.message).toContain('statuses');
  });

  it("keeps each user's dreams theirs: another user gets 404 for the dream, the store and the session", async () => {
    const store = await storeWith('Private', { '/p.md': 'private' });
    const sessionId = await openSessionAs(h, DEV, 'private chat');
    h.fake.script({ text: answer([{ path: '/p.md', content: 'private, tidied' }]) });
    const mine = await client.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL });
    await workerIdle();
    const mallory = await sdkClientAs(h, 'mallory');
    const attempts: (() => Promise<unknown>)[] = [
      () => mallory.beta.dreams.retrieve(mine.id),
      () => mallory.beta.dreams.cancel(mine.id),
      () => mallory.beta.dreams.archive(mine.id),
      () => mallory.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: store.id }], model: MODEL }),
    ];
    for (const attempt of attempts) expect(await attempt().catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect(valid(dreamPageSchema, await mallory.beta.dreams.list({ include_archived: true })).data).toEqual([]);
    const theirs = await mallory.beta.memoryStores.create({ name: 'Theirs' });
    const withMySession = await mallory.beta.dreams.create({ inputs: [{ type: 'memory_store', memory_store_id: theirs.id }, { type: 'sessions', session_ids: [sessionId] }], model: MODEL }).catch((e: unknown) => e);
    expect(withMySession).toBeInstanceOf(Anthropic.NotFoundError);
    expect(valid(dreamSchema, await client.beta.dreams.retrieve(mine.id))).toMatchObject({ status: 'completed', archived_at: null });
    expect(valid(memorySchema.array(), (await client.beta.memoryStores.memories.list(store.id)).data)).toHaveLength(1);
  });

  it('the worker function runs a dream job from the run queue as on AWS, once however often SQS delivers it; a job of a dream that does not exist does nothing', async () => {
    const store = await storeWith('Queued', { '/q.md': 'queued' });
    // A dream as the API records it before its job reaches SQS.
    const id = 'drm_workerjob000000000000001';
    await h.server.runtime.dreams.create({
      id, owner: 'dev', status: 'pending', memory_store_id: store.id, session_ids: [], model: MODEL, instructions: null, output_behavior: 'update_existing',
      output_store_id: null, created_at: new Date().toISOString(), started_at: null, ended_at: null, archived_at: null, error: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, cost_usd: 0,
    });
    Object.assign(process.env, { ...storeEnv(h), ANTHROPIC_BASE_URL: h.fake.url, ANTHROPIC_API_KEY: 'sk-ant-worker-key-0123456789', ZERO_SESSION_TITLES: 'off' });
    const { handler } = await import('../functions/worker');
    h.fake.script({ text: answer([{ path: '/q.md', content: 'queued, tidied' }]) });
    const job = JSON.stringify({ kind: 'dream', dream_id: id, owner: 'dev' });
    const records = [{ messageId: 'first', body: job }, { messageId: 'again', body: job }, { messageId: 'nobody', body: JSON.stringify({ kind: 'dream', dream_id: 'drm_nosuchdream0000000000000', owner: 'dev' }) }];
    const result = await handler({ Records: records });
    // A job for a dream that does not exist (or ended, or runs elsewhere) does nothing: nothing to redeliver.
    expect(result.batchItemFailures).toEqual([]);
    expect(valid(dreamSchema, await client.beta.dreams.retrieve(id))).toMatchObject({ status: 'completed', outputs: [{ memory_store_id: store.id }] });
    expect(await contentsOf(store.id)).toEqual({ '/q.md': 'queued, tidied' });
    expect((await versionsOf(store.id)).filter((v) => v.operation === 'modified')).toHaveLength(1);
  });
});
