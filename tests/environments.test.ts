import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { environmentListSchema, environmentResponseSchema } from '@zero/integrations/environment-store';
import { DEV, DEV_KEY, postJson, send, startHarness, type Harness } from './support/harness';
import { apiErrorSchema, deletedEnvironmentSchema, environmentPageSchema, environmentSchema, valid } from './support/managed-agents-schemas';

const DEFAULT = 'env_zero_lambda';


describe('environments as resources, through the official SDK and /api/v2', () => {
  let h: Harness;
  let admin: Anthropic;
  let alice: Anthropic;
  let bob: Anthropic;
  let aliceHeaders: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness();
    admin = new Anthropic({ apiKey: DEV_KEY, baseURL: h.url, maxRetries: 0 });
    aliceHeaders = await h.userHeaders('alice', 'Alice');
    const bobHeaders = await h.userHeaders('bob', 'Bob');
    const keyOf = (headers: Record<string, string>) => headers.authorization!.replace(/^Bearer /, '');
    alice = new Anthropic({ apiKey: keyOf(aliceHeaders), baseURL: h.url, maxRetries: 0 });
    bob = new Anthropic({ apiKey: keyOf(bobHeaders), baseURL: h.url, maxRetries: 0 });
  });
  afterAll(() => h.close());

  const list = async (client: Anthropic, query: { include_archived?: boolean } = {}) => {
    const out = [];
    for await (const environment of client.beta.environments.list(query)) out.push(valid(environmentSchema, environment));
    return out;
  };

  it('creates, retrieves, updates, lists, archives and deletes an environment in the SDK’s shapes; packages, networking and metadata are kept', async () => {
    const created = valid(
      environmentSchema,
      await alice.beta.environments.create({
        name: 'python-data',
        description: 'numbers',
        metadata: { team: 'data' },
        config: { type: 'cloud', packages: { pip: ['pandas==2.2.3'], apt: ['ripgrep'] }, networking: { type: 'limited', allowed_hosts: ['pypi.org', '*.githubusercontent.com'], allow_package_managers: true } },
      }),
    );
    expect(created).toMatchObject({
      type: 'environment',
      name: 'python-data',
      description: 'numbers',
      metadata: { team: 'data' },
      archived_at: null,
      config: {
        type: 'cloud',
        packages: { pip: ['pandas==2.2.3'], apt: ['ripgrep'], npm: [], cargo: [], gem: [], go: [] },
        networking: { type: 'limited', allowed_hosts: ['pypi.org', '*.githubusercontent.com'], allow_package_managers: true, allow_mcp_servers: false },
      },
    });
    expect(created.id).toMatch(/^env_/);
    expect(valid(environmentSchema, await alice.beta.environments.retrieve(created.id))).toEqual(created);

    const updated = valid(environmentSchema, await alice.beta.environments.update(created.id, { name: 'py', metadata: { team: null, owner: 'qa' }, config: { type: 'cloud', packages: { npm: ['left-pad@1.3.0'] } } }));
    expect(updated).toMatchObject({ name: 'py', metadata: { owner: 'qa' }, config: { packages: { pip: ['pandas==2.2.3'], npm: ['left-pad@1.3.0'] } } });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    expect((await list(alice)).map((e) => e.id)).toEqual([created.id, DEFAULT]);
    const archived = valid(environmentSchema, await alice.beta.environments.archive(created.id));
    expect(archived.archived_at).not.toBeNull();
    expect((await list(alice)).map((e) => e.id)).toEqual([DEFAULT]);
    expect((await list(alice, { include_archived: true })).map((e) => e.id)).toEqual([created.id, DEFAULT]);
    // Archived: no updates, no new sessions.
    const refused = await alice.beta.environments.update(created.id, { name: 'again' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as Error).message).toContain('archived');
    const agent = await alice.beta.agents.create({ name: 'A', model: 'claude-sonnet-4-6' });
    const noSession = await alice.beta.sessions.create({ agent: agent.id, environment_id: created.id }).catch((e: unknown) => e);
    expect(noSession).toBeInstanceOf(Anthropic.BadRequestError);
    expect((noSession as Error).message).toContain('environment_id');

    expect(valid(deletedEnvironmentSchema, await alice.beta.environments.delete(created.id))).toEqual({ type: 'environment_deleted', id: created.id });
    expect(await alice.beta.environments.retrieve(created.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('a user reaches only their own environments (another’s is a 404, as one that does not exist); administrators reach all; the default one is everyone’s and built in', async () => {
    const bobs = valid(environmentSchema, await bob.beta.environments.create({ name: 'bob-box', config: { type: 'self_hosted' } }));
    for (const attempt of [
      () => alice.beta.environments.retrieve(bobs.id),
      () => alice.beta.environments.update(bobs.id, { name: 'mine now' }),
      () => alice.beta.environments.archive(bobs.id),
      () => alice.beta.environments.delete(bobs.id),
      () => alice.beta.environments.work.poll(bobs.id),
      () => alice.beta.environments.work.stats(bobs.id),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.NotFoundError);
      expect(valid(apiErrorSchema, (error as InstanceType<typeof Anthropic.APIError>).error).error.type).toBe('not_found_error');
    }
    expect((await list(alice)).map((e) => e.id)).not.toContain(bobs.id);
    const agent = await alice.beta.agents.create({ name: 'A', model: 'claude-sonnet-4-6' });
    expect(await alice.beta.sessions.create({ agent: agent.id, environment_id: bobs.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    // Administrators reach it; bob's own list has it.
    expect(valid(environmentSchema, await admin.beta.environments.retrieve(bobs.id)).name).toBe('bob-box');
    expect((await list(bob)).map((e) => e.id)).toContain(bobs.id);

    const fallback = valid(environmentSchema, await alice.beta.environments.retrieve(DEFAULT));
    expect(fallback.config.type).toBe('cloud');
    expect(fallback.config).toMatchObject({ networking: { type: 'limited', allowed_hosts: [] } });
    for (const attempt of [() => admin.beta.environments.update(DEFAULT, { name: 'x' }), () => admin.beta.environments.delete(DEFAULT), () => admin.beta.environments.archive(DEFAULT)]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as Error).message).toContain('default environment');
    }
    // The default environment has no work queue: it is not self-hosted.
    const noQueue = await alice.beta.environments.work.poll(DEFAULT).catch((e: unknown) => e);
    expect(noQueue).toBeInstanceOf(Anthropic.BadRequestError);
    expect((noQueue as Error).message).toContain('not self_hosted');
    // A session names its environment, kept and shown.
    const session = await bob.beta.sessions.create({ agent: (await bob.beta.agents.create({ name: 'B', model: 'claude-sonnet-4-6' })).id, environment_id: bobs.id });
    expect((await bob.beta.sessions.retrieve(session.id)).environment_id).toBe(bobs.id);
  });

  it('a bad body is a 400 naming the field; the type never changes after creation', async () => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: 'x', config: { type: 'docker' } }, 'config'],
      [{ name: 'x', config: { type: 'cloud', packages: { apt: ['curl; rm -rf /'] } } }, 'config.packages.apt.0'],
      [{ name: 'x', config: { type: 'cloud', networking: { type: 'limited', allowed_hosts: ['http://evil'] } } }, 'config.networking.allowed_hosts.0'],
      [{ name: 'x', config: { type: 'cloud', packages: { pip: ['requests'] } } }, 'config.packages'],
      [{ name: 'x', scope: 'organization' }, 'scope'],
      [{ name: 'x', colour: 'blue' }, 'colour'],
      [{ name: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ] as const) {
      const answer = await postJson(`${h.url}/v1/environments`, body, DEV);
      expect({ field, status: answer.status }).toEqual({ field, status: 400 });
      expect(valid(apiErrorSchema, answer.json).error.message).toContain(field);
    }
    const cloud = await admin.beta.environments.create({ name: 'cloud' });
    const change = await admin.beta.environments.update(cloud.id, { config: { type: 'self_hosted' } }).catch((e: unknown) => e);
    expect(change).toBeInstanceOf(Anthropic.BadRequestError);
    expect((change as Error).message).toContain('config.type');
    const badQuery = await fetch(`${h.url}/v1/environments/${cloud.id}/work/poll?block_ms=5000`, { headers: DEV });
    expect(badQuery.status).toBe(400);
  });

  it('/api/v2/environments shows the kind, limits and owner, and takes them', async () => {
    const created = await send(h, 'POST', '/environments', aliceHeaders, { name: 'ci', kind: 'local', packages: { npm: ['vitest'] }, network: { type: 'limited', allowed_hosts: ['registry.npmjs.org'], allow_package_managers: true }, limits: { memory_mb: 512, timeout_seconds: 60 } });
    expect(created.status).toBe(201);
    const environment = valid(environmentResponseSchema, created.json).environment;
    expect(environment).toMatchObject({ kind: 'local', owner: 'alice', limits: { memory_mb: 512, timeout_seconds: 60 }, config: { type: 'cloud', packages: { npm: ['vitest'] } } });
    const patched = await send(h, 'PATCH', `/environments/${environment.id}`, aliceHeaders, { limits: { processes: 64 } });
    expect(valid(environmentResponseSchema, patched.json).environment.limits).toEqual({ processes: 64 });
    // The SDK sees the same resource.
    expect((await alice.beta.environments.retrieve(environment.id)).name).toBe('ci');
    const listed = valid(environmentListSchema, (await send(h, 'GET', '/environments', aliceHeaders)).json).environments.map((e) => e.id);
    expect(listed).toContain(environment.id);
    for (const [body, field] of [
      [{ name: 'x', kind: 'docker' }, 'kind'],
      [{ name: 'x', limits: { memory_mb: 1 } }, 'limits.memory_mb'],
      [{ name: 'x', limits: { gpus: 1 } }, 'limits'],
    ] as const) {
      const answer = await send(h, 'POST', '/environments', aliceHeaders, body);
      expect({ field, status: answer.status }).toEqual({ field, status: 400 });
      expect(answer.text).toContain(field);
    }
    expect((await send(h, 'GET', `/environments/${environment.id}`, await h.userHeaders('carol'))).status).toBe(404);
    expect((await send(h, 'DELETE', `/environments/${environment.id}`, aliceHeaders)).status).toBe(204);
    expect((await send(h, 'GET', `/environments/${environment.id}`, aliceHeaders)).status).toBe(404);
  });
});
