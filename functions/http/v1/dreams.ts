import { Hono } from 'hono';
import * as z from 'zod';
import { invalidField, notFound } from '@zero/agent/errors';
import { ApiMemoryStores } from '@zero/runtime/memory/api-stores';
import { newDreamId } from '@zero/runtime/memory/dream-store';
import { startDream } from '@zero/runtime/memory/dream-job';
import { FINAL_DREAM_STATUSES, dreamStatusSchema, type Dream } from '@zero/runtime/store/items/dream';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';
import { json, query } from './validate';

const memoryStoreInput = z.strictObject({ type: z.literal('memory_store'), memory_store_id: z.string().min(1).max(128) });
const sessionsInput = z.strictObject({
  type: z.literal('sessions'),
  session_ids: z
    .array(z.string().min(1).max(128))
    .min(1)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id'),
});
const modelParam = z.union([
  z.string().min(1).max(256),
  z.strictObject({ id: z.string().min(1).max(256), speed: z.enum(['standard', 'fast']).nullish() }),
]);
const dreamCreate = z.strictObject({
  inputs: z
    .array(z.discriminatedUnion('type', [memoryStoreInput, sessionsInput]))
    .min(1)
    .max(2)
    .refine((inputs) => inputs.filter((i) => i.type === 'memory_store').length === 1, 'must hold exactly one memory_store entry')
    .refine((inputs) => inputs.filter((i) => i.type === 'sessions').length <= 1, 'must hold at most one sessions entry'),
  model: modelParam,
  instructions: z.string().min(1).max(4096).nullish(),
  output_behavior: z
    .discriminatedUnion('type', [z.strictObject({ type: z.literal('create_new') }), z.strictObject({ type: z.literal('update_existing'), memory_store_id: z.string().min(1).max(128) })])
    .optional(),
});
const time = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'must be an RFC 3339 time');
const listQuery = z.object({ ...pageQuery, include_archived: queryBoolean.optional(), 'created_at[gt]': time.optional(), 'created_at[lt]': time.optional() });

/** `BetaDream`: the stored dream as the SDK declares it. */
function dreamResource(dream: Dream) {
  return {
    type: 'dream' as const,
    id: dream.id,
    status: dream.status,
    inputs: [
      { type: 'memory_store' as const, memory_store_id: dream.memory_store_id },
      ...(dream.session_ids.length ? [{ type: 'sessions' as const, session_ids: dream.session_ids }] : []),
    ],
    model: { id: dream.model, speed: 'standard' as const },
    instructions: dream.instructions,
    output_behavior: dream.output_behavior === 'update_existing' ? { type: 'update_existing' as const, memory_store_id: dream.memory_store_id } : { type: 'create_new' as const },
    outputs: dream.output_store_id ? [{ type: 'memory_store' as const, memory_store_id: dream.output_store_id }] : [],
    // Zero runs a dream in the worker, not in a session.
    session_id: null,
    error: dream.error,
    usage: dream.usage,
    created_at: dream.created_at,
    ended_at: dream.ended_at,
    archived_at: dream.archived_at,
  };
}

/**
 * `/v1/dreams` (`client.beta.dreams`): a user's consolidations of their memory stores, queued for
 * the worker (runtime/memory/dreams.ts). Another user's dream, store or session is a 404.
 */
export function dreamRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const stores = new ApiMemoryStores(deps.artifacts);

  app.post('/dreams', json(dreamCreate), async (c) => {
    const params = c.req.valid('json');
    const user = c.get('user');
    const model = typeof params.model === 'string' ? { id: params.model } : params.model;
    if (typeof params.model === 'object' && params.model.speed === 'fast') throw invalidField('model.speed', 'dreams run only at "standard" speed');
    const storeIndex = params.inputs.findIndex((i) => i.type === 'memory_store');
    const storeInput = params.inputs[storeIndex] as z.infer<typeof memoryStoreInput>;
    const store = await stores.reachStore(user.id, storeInput.memory_store_id);
    if (store.archived_at) throw invalidField(`inputs.${storeIndex}.memory_store_id`, `memory store "${store.id}" is archived`);
    const sessionsIndex = params.inputs.findIndex((i) => i.type === 'sessions');
    const sessionIds = sessionsIndex < 0 ? [] : [...(params.inputs[sessionsIndex] as z.infer<typeof sessionsInput>).session_ids].sort();
    for (const id of sessionIds) {
      if (!(await deps.sessions.getMember(id, user.id))) throw notFound(`no session "${id}"`, `inputs.${sessionsIndex}.session_ids`);
    }
    const behavior = params.output_behavior?.type ?? 'create_new';
    if (params.output_behavior?.type === 'update_existing' && params.output_behavior.memory_store_id !== store.id) {
      throw invalidField('output_behavior.memory_store_id', `must be the memory store of inputs (${store.id})`);
    }
    if (behavior === 'update_existing') {
      const holder = (await deps.dreams.list(user.id)).find((d) => d.output_behavior === 'update_existing' && d.memory_store_id === store.id && !FINAL_DREAM_STATUSES.includes(d.status));
      if (holder) {
        c.header('x-should-retry', 'false');
        return c.json({ type: 'error', error: { type: 'conflict_error', message: `dream "${holder.id}" is still writing memory store "${store.id}": wait for it to end or cancel it, then retry` }, request_id: null }, 409);
      }
    }
    // A user whose daily budget (or the deployment's) is spent starts no dream.
    await (await deps.budgets?.())?.refuseIfSpent(user.id);
    const dream = await startDream(deps, {
      id: newDreamId(),
      owner: user.id,
      status: 'pending',
      memory_store_id: store.id,
      session_ids: sessionIds,
      model: model.id,
      instructions: params.instructions ?? null,
      output_behavior: behavior,
      output_store_id: null,
      created_at: new Date().toISOString(),
      started_at: null,
      ended_at: null,
      archived_at: null,
      error: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      cost_usd: 0,
    });
    return c.json(dreamResource(dream));
  });

  app.get('/dreams', query(listQuery), async (c) => {
    const q = c.req.valid('query');
    // `statuses[]=…` repeated (the SDK's bracket format), or `statuses=…`.
    const raw = [...(c.req.queries('statuses[]') ?? []), ...(c.req.queries('statuses') ?? [])];
    const statuses = z.array(dreamStatusSchema).safeParse(raw);
    if (!statuses.success) throw invalidField('statuses', `each must be one of ${dreamStatusSchema.options.join(', ')}`);
    const gt = q['created_at[gt]'] ? Date.parse(q['created_at[gt]']) : -Infinity;
    const lt = q['created_at[lt]'] ? Date.parse(q['created_at[lt]']) : Infinity;
    const all = (await deps.dreams.list(c.get('user').id)).filter(
      (d) => (q.include_archived || !d.archived_at) && (!statuses.data.length || statuses.data.includes(d.status)) && Date.parse(d.created_at) > gt && Date.parse(d.created_at) < lt,
    );
    const page = pageOf(all, q);
    return c.json({ data: page.data.map(dreamResource), next_page: page.next_page });
  });

  app.get('/dreams/:id', async (c) => c.json(dreamResource(await deps.dreams.reach(c.get('user').id, c.req.param('id')))));

  app.post('/dreams/:id/archive', async (c) => {
    const current = await deps.dreams.reach(c.get('user').id, c.req.param('id'));
    if (current.archived_at) return c.json(dreamResource(current));
    if (!FINAL_DREAM_STATUSES.includes(current.status)) throw invalidField('dream_id', `dream "${current.id}" is ${current.status}: cancel it before archiving it`);
    const archived = await deps.dreams.transition(current, FINAL_DREAM_STATUSES, { archived_at: new Date().toISOString() });
    return c.json(dreamResource(archived ?? (await deps.dreams.reach(current.owner, current.id))));
  });

  app.post('/dreams/:id/cancel', async (c) => {
    const current = await deps.dreams.reach(c.get('user').id, c.req.param('id'));
    if (current.status === 'canceled') return c.json(dreamResource(current));
    if (current.status === 'completed' || current.status === 'failed') throw invalidField('dream_id', `dream "${current.id}" is ${current.status}: only a pending or running dream can be canceled`);
    const canceled = await deps.dreams.transition(current, ['pending', 'running'], { status: 'canceled', ended_at: new Date().toISOString() });
    // It reached `completed` or `failed` first: answered as it is.
    return c.json(dreamResource(canceled ?? (await deps.dreams.reach(current.owner, current.id))));
  });

  return app;
}
