import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startHarness, type Harness } from './support/harness';
import { sdkClientAs } from './support/sdk';
import { apiErrorSchema, sessionEventSchema, sessionSchema, valid, type SessionEvent } from './support/managed-agents-schemas';
import { deletedResourceSchema } from './support/files-schemas';
import { memoryPageSchema, memorySchema } from './support/memory-store-schemas';

const ENV = 'env_zero_lambda';

/** `BetaManagedAgentsMemoryStoreResource` (Zero adds the `id`, `created_at` and `updated_at` every session resource has). */
const memoryStoreResourceSchema = z.strictObject({
  id: z.string(),
  type: z.literal('memory_store'),
  memory_store_id: z.string(),
  access: z.enum(['read_write', 'read_only']).nullable().optional(),
  description: z.string().optional(),
  instructions: z.string().nullable().optional(),
  mount_path: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
const resourcePageSchema = z.object({ data: z.array(memoryStoreResourceSchema), next_page: z.string().nullable() });

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };
/** An error's body, checked against the SDK's error type, as text (with the field Zero names). */
const errorText = (e: unknown) => {
  const body = (e as InstanceType<typeof Anthropic.APIError>).error;
  valid(apiErrorSchema, body);
  return JSON.stringify(body);
};

/** Memory stores attached to a session (`resources` of type `memory_store`): the agent reaches them with the memory tool. */
describe('memory stores as session resources, through the official SDK', () => {
  let h: Harness;
  let alice: Anthropic;
  let mallory: Anthropic;

  beforeAll(async () => {
    h = await startHarness();
    alice = await sdkClientAs(h, 'alice');
    mallory = await sdkClientAs(h, 'mallory');
  });
  afterAll(async () => h.close());

  /** The results of the memory tool calls with these ids, as the model was sent them. */
  const results = (ids: string[]) =>
    h.fake.requests
      .flatMap((r) => r.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : [])))
      .filter((b) => b.type === 'tool_result' && ids.includes(b.tool_use_id!))
      .map((b) => ({ id: b.tool_use_id, is_error: !!b.is_error, text: typeof b.content === 'string' ? b.content : JSON.stringify(b.content) }));

  /** One user message; the fake model makes `calls`, then answers; returns once the session is idle. */
  const turn = async (sessionId: string, calls: { id: string; input: Record<string, unknown> }[]) => {
    h.fake.script({ toolCalls: calls.map((c) => ({ id: c.id, name: 'memory', input: c.input })) }, { text: 'Done.' });
    const stream = await alice.beta.sessions.events.stream(sessionId);
    await alice.beta.sessions.events.send(sessionId, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Use the memory.' }] }] });
    for await (const raw of stream) {
      const event: SessionEvent = valid(sessionEventSchema, raw);
      if (event.type === 'session.status_idle') break;
    }
    const seen = new Map(results(calls.map((c) => c.id)).map((r) => [r.id, r]));
    return calls.map((c) => seen.get(c.id)!);
  };

  it('attaches a store at create and with resources.add; the agent reads it, writes a read_write one (listed by memories.list), and a read_only one refuses writes', async () => {
    const agent = await alice.beta.agents.create({ name: 'Recaller', model: 'claude-sonnet-4-6' });
    const prefs = await alice.beta.memoryStores.create({ name: 'User Preferences', description: 'What alice likes' });
    await alice.beta.memoryStores.memories.create(prefs.id, { path: '/coffee.md', content: 'alice takes her coffee black' });
    const policy = await alice.beta.memoryStores.create({ name: 'Policy' });
    await alice.beta.memoryStores.memories.create(policy.id, { path: '/rules.md', content: 'no deploys on Friday' });

    const session = valid(
      sessionSchema,
      await alice.beta.sessions.create({ agent: agent.id, environment_id: ENV, resources: [{ type: 'memory_store', memory_store_id: prefs.id, instructions: 'Check before answering.' }] }),
    );
    const attached = valid(memoryStoreResourceSchema, session.resources[0]);
    expect(attached).toMatchObject({ type: 'memory_store', memory_store_id: prefs.id, access: 'read_write', instructions: 'Check before answering.', name: 'User Preferences', description: 'What alice likes', mount_path: '/mnt/memory/user-preferences' });
    const added = valid(
      memoryStoreResourceSchema,
      await alice.beta.sessions.resources.add(session.id, { type: 'memory_store', memory_store_id: policy.id, access: 'read_only' } as unknown as Anthropic.Beta.Sessions.ResourceAddParams),
    );
    expect(added).toMatchObject({ memory_store_id: policy.id, access: 'read_only', mount_path: '/mnt/memory/policy', instructions: null });
    const page = valid(resourcePageSchema, await alice.beta.sessions.resources.list(session.id).then((p) => ({ data: p.data, next_page: p.next_page })));
    expect(page.data.map((r) => r.id)).toEqual([attached.id, added.id]);
    expect(valid(memoryStoreResourceSchema, await alice.beta.sessions.resources.retrieve(added.id, { session_id: session.id }))).toEqual(added);

    const [read, wrote, rules, refused] = await turn(session.id, [
      { id: 'read', input: { command: 'view', path: '/mnt/memory/user-preferences/coffee.md' } },
      { id: 'write', input: { command: 'create', path: '/mnt/memory/user-preferences/tea.md', file_text: 'alice drinks green tea after lunch' } },
      { id: 'rules', input: { command: 'view', path: '/mnt/memory/policy/rules.md' } },
      { id: 'refused', input: { command: 'create', path: '/mnt/memory/policy/new.md', file_text: 'deploy anytime' } },
    ]);
    // The prompt says where each store is, whether it may be written, and the attacher's instructions.
    const system = JSON.stringify(h.fake.requests.at(-1)!.body.system);
    expect(system).toContain('/mnt/memory/user-preferences (\\"User Preferences\\", read and write): What alice likes Check before answering.');
    expect(system).toContain('/mnt/memory/policy (\\"Policy\\", read only)');
    expect(read).toMatchObject({ is_error: false });
    expect(read!.text).toContain('alice takes her coffee black');
    expect(wrote).toMatchObject({ is_error: false, text: expect.stringContaining('/mnt/memory/user-preferences/tea.md') });
    expect(rules!.text).toContain('no deploys on Friday');
    expect(refused).toMatchObject({ is_error: true });
    expect(refused!.text).toContain(`memory store "Policy" (${policy.id}) is attached read_only`);

    const memories = valid(memoryPageSchema, await alice.beta.memoryStores.memories.list(prefs.id).then((p) => ({ data: p.data, next_page: p.next_page })));
    expect(memories.data.map((m) => m.path).sort()).toEqual(['/coffee.md', '/tea.md']);
    const tea = memories.data.find((m) => m.type === 'memory' && m.path === '/tea.md')! as z.infer<typeof memorySchema>;
    expect(valid(memorySchema, await alice.beta.memoryStores.memories.retrieve(tea.id, { memory_store_id: prefs.id, view: 'full' })).content).toBe('alice drinks green tea after lunch');
    expect((await alice.beta.memoryStores.memories.list(policy.id)).data.map((m) => m.path)).toEqual(['/rules.md']);

    expect(valid(deletedResourceSchema, await alice.beta.sessions.resources.delete(added.id, { session_id: session.id }))).toEqual({ id: added.id, type: 'session_resource_deleted' });
    const [gone] = await turn(session.id, [{ id: 'gone', input: { command: 'view', path: '/mnt/memory/policy/rules.md' } }]);
    expect(gone).toMatchObject({ is_error: true, text: expect.stringContaining('attached: /mnt/memory/user-preferences') });
  });

  it("refuses another user's store (404 naming memory_store_id), at create and with resources.add, and two stores at one mount path", async () => {
    const secret = await alice.beta.memoryStores.create({ name: 'Secret' });
    const agent = await mallory.beta.agents.create({ name: 'Snoop', model: 'claude-sonnet-4-6' });
    const atCreate = await mallory.beta.sessions.create({ agent: agent.id, environment_id: ENV, resources: [{ type: 'memory_store', memory_store_id: secret.id }] }).catch((e: unknown) => e);
    expect(atCreate).toBeInstanceOf(Anthropic.NotFoundError);
    expect(errorText(atCreate)).toContain('resources.0.memory_store_id');
    const session = await mallory.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const added = await mallory.beta.sessions.resources
      .add(session.id, { type: 'memory_store', memory_store_id: secret.id } as unknown as Anthropic.Beta.Sessions.ResourceAddParams)
      .catch((e: unknown) => e);
    expect(added).toBeInstanceOf(Anthropic.NotFoundError);
    expect(errorText(added)).toContain('body.memory_store_id');
    expect((await mallory.beta.sessions.resources.list(session.id)).data).toEqual([]);

    // Two stores of one name would share a mount path: the second is refused, naming it.
    const twin = await alice.beta.memoryStores.create({ name: 'secret' });
    const mine = await alice.beta.agents.create({ name: 'Owner', model: 'claude-sonnet-4-6' });
    const clash = await alice.beta.sessions
      .create({ agent: mine.id, environment_id: ENV, resources: [{ type: 'memory_store', memory_store_id: secret.id }, { type: 'memory_store', memory_store_id: twin.id, access: 'read_only' }] })
      .catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(Anthropic.BadRequestError);
    expect(errorText(clash)).toContain('/mnt/memory/secret overlaps /mnt/memory/secret');
  });
});
