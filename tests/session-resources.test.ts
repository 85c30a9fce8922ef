import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { createBashTool } from '@zero/runtime/tools/bash';
import { startHarness, type Harness } from './support/harness';
import { toolContext } from './support/tool-context';
import { apiErrorSchema, sessionSchema, valid } from './support/managed-agents-schemas';
import { deletedResourceSchema, fileResourceSchema, sessionResourcePageSchema, sessionResourceSchema } from './support/files-schemas';

const ENV = 'env_zero_lambda';

const errorOf = (e: unknown) => valid(apiErrorSchema, (e as InstanceType<typeof Anthropic.APIError>).error).error;

/** Session resources (`client.beta.sessions.resources`): files and repositories in the working copy of the session's commands. */
describe("a session's resources, through the official SDK", () => {
  let h: Harness;
  let scratch: string;
  let registry: ToolRegistry;
  let alice: Anthropic;
  let mallory: Anthropic;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'zero-session-resources-'));
    // The sandbox's host user (nobody, when the tests run as root) passes through to the copies.
    await chmod(scratch, 0o711);
    const bash = createBashTool({ scratchRoot: join(scratch, 'copies'), packagesRoot: join(scratch, 'environments'), mode: 'full' });
    registry = new ToolRegistry([bash], { permissions: { side_effects: 'allow' } });
    h = await startHarness({ extraTools: [bash] });
    const keyOf = async (user: string) => (await h.userHeaders(user)).authorization!.slice('Bearer '.length);
    alice = new Anthropic({ apiKey: await keyOf('alice'), baseURL: h.url, maxRetries: 0 });
    mallory = new Anthropic({ apiKey: await keyOf('mallory'), baseURL: h.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await h.close();
    await rm(scratch, { recursive: true, force: true });
  });

  /** A bash call in the session as a run makes it, in a run of its own (a fresh working copy). */
  const bash = async (sessionId: string, command: string, run: string) => {
    const context = { ...toolContext(h.server.runtime, { sessionId, projectId: '', tools: ['bash'] }), projectId: undefined, runId: `run_${run}`, environments: h.server.runtime.environments };
    return registry.execute('bash', { command }, context, { timeoutMs: 600_000, maxOutputChars: 200_000 });
  };

  it('mounts files at their paths, adds, lists, retrieves and deletes resources; the session keeps its copy when the file is deleted', async () => {
    const agent = await alice.beta.agents.create({ name: 'Analyst', model: 'claude-sonnet-4-6' });
    const data = await alice.beta.files.upload({ file: await toFile(Buffer.from('a,b\n1,2\n'), 'data.csv', { type: 'text/csv' }) });
    const notes = await alice.beta.files.upload({ file: await toFile(Buffer.from('remember the milk\n'), 'notes.txt', { type: 'text/plain' }) });
    const session = valid(sessionSchema, await alice.beta.sessions.create({ agent: agent.id, environment_id: ENV, resources: [{ type: 'file', file_id: data.id, mount_path: '/workspace/data/input.csv' }] }));
    expect(session.resources).toMatchObject([{ type: 'file', file_id: data.id, mount_path: '/workspace/data/input.csv' }]);

    const added = valid(fileResourceSchema, await alice.beta.sessions.resources.add(session.id, { type: 'file', file_id: notes.id }));
    expect(added).toMatchObject({ type: 'file', file_id: notes.id, mount_path: '/workspace/uploads/notes.txt' });
    const listed: string[] = [];
    for await (const r of alice.beta.sessions.resources.list(session.id, { limit: 1 })) listed.push(valid(sessionResourceSchema, r).mount_path);
    expect(listed).toEqual(['/workspace/data/input.csv', '/workspace/uploads/notes.txt']);
    valid(sessionResourcePageSchema, await alice.beta.sessions.resources.list(session.id).then((p) => ({ data: p.data, next_page: p.next_page })));
    expect(valid(sessionResourceSchema, await alice.beta.sessions.resources.retrieve(added.id, { session_id: session.id }))).toEqual(added);

    const read = await bash(session.id, 'cat data/input.csv uploads/notes.txt', 'first');
    expect(read.content).toMatch(/--- stdout ---\na,b\n1,2\nremember the milk\n/);

    // The file deleted from the Files API: the session's copy stays.
    await alice.beta.files.delete(data.id);
    expect((await bash(session.id, 'cat data/input.csv', 'second')).content).toContain('a,b\n1,2');

    expect(valid(deletedResourceSchema, await alice.beta.sessions.resources.delete(added.id, { session_id: session.id }))).toEqual({ id: added.id, type: 'session_resource_deleted' });
    expect((await alice.beta.sessions.resources.list(session.id)).data.map((r) => r.mount_path)).toEqual(['/workspace/data/input.csv']);
    expect((await bash(session.id, 'ls uploads 2>&1; echo done', 'third')).content).toContain('No such file');
    expect(await alice.beta.sessions.resources.retrieve(added.id, { session_id: session.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("refuses clearly: another user's file or session, a token update, a memory store, an overlapping or escaping mount path", async () => {
    const agent = await alice.beta.agents.create({ name: 'Careful', model: 'claude-sonnet-4-6' });
    const session = await alice.beta.sessions.create({ agent: agent.id, environment_id: ENV, resources: [{ type: 'github_repository', url: 'https://github.com/acme/widgets' }] });
    const repo = valid(sessionResourceSchema, (await alice.beta.sessions.resources.list(session.id)).data[0]);
    expect(repo).toMatchObject({ type: 'github_repository', url: 'https://github.com/acme/widgets', mount_path: '/workspace/widgets' });

    const update = await alice.beta.sessions.resources.update(repo.id, { session_id: session.id, authorization_token: 'ghp_secret' }).catch((e: unknown) => e);
    expect(update).toBeInstanceOf(Anthropic.BadRequestError);
    expect(errorOf(update).message).toContain('authorization_token: Zero keeps no token in a session');
    expect(errorOf(update).message).not.toContain('ghp_secret');

    const theirs = await mallory.beta.files.upload({ file: await toFile(Buffer.from('x'), 'x.txt') });
    expect(await alice.beta.sessions.resources.add(session.id, { type: 'file', file_id: theirs.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect(await mallory.beta.sessions.resources.add(session.id, { type: 'file', file_id: theirs.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect(await mallory.beta.sessions.resources.list(session.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);

    const mine = await alice.beta.files.upload({ file: await toFile(Buffer.from('y'), 'y.txt') });
    const overlap = await alice.beta.sessions.resources.add(session.id, { type: 'file', file_id: mine.id, mount_path: '/workspace/widgets/y.txt' }).catch((e: unknown) => e);
    expect(overlap).toBeInstanceOf(Anthropic.BadRequestError);
    expect(errorOf(overlap).message).toContain('overlaps /workspace/widgets');
    const escape = await alice.beta.sessions.resources.add(session.id, { type: 'file', file_id: mine.id, mount_path: '/workspace/../etc/passwd' }).catch((e: unknown) => e);
    expect(escape).toBeInstanceOf(Anthropic.BadRequestError);
    const memory = await alice.beta.sessions
      .create({ agent: agent.id, environment_id: ENV, resources: [{ type: 'memory_store', memory_store_id: 'memstore_1' }] })
      .catch((e: unknown) => e);
    // A memory store is attached by its owner only (tests/managed-memory-resources.test.ts): an unknown one is a 404 naming the field.
    expect(memory).toBeInstanceOf(Anthropic.NotFoundError);
    expect(errorOf(memory).message).toContain('resources.0.memory_store_id');
  });
});
