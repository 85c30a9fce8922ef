import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { S3AgentCatalog } from '@zero/agent/definitions/catalog';
import { SessionStore } from '@zero/runtime/store/session-store';
import { createDynamoClient, createS3Client } from '@zero/runtime/store/clients';
import { OFFLOAD_BYTES } from '@zero/runtime/store/table';
import { startLocalStack, type LocalStack } from '../local/stack';

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };

describe('stores against dynalite and s3rver', () => {
  let stack: LocalStack;
  let sessions: SessionStore;
  let artifacts: ArtifactStore;
  beforeAll(async () => {
    stack = await startLocalStack();
    artifacts = new ArtifactStore(createS3Client(stack.store), stack.store.bucket);
    sessions = new SessionStore(createDynamoClient(stack.store), stack.store.table, artifacts);
  });
  afterAll(() => stack.stop());

  it('a stack without a data folder keeps S3 in a temporary folder, and removes it on stop', async () => {
    const { existsSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const other = await startLocalStack();
    expect(other.s3Dir.startsWith(tmpdir())).toBe(true);
    expect(existsSync(other.s3Dir)).toBe(true);
    await other.stop();
    expect(existsSync(other.s3Dir)).toBe(false);
  });

  const newSession = (id: string) =>
    sessions.createSession({ session_id: id, title: 't', agent_id: 'zero', created_at: 'now', updated_at: 'now' });

  it('detects two writers racing for the same log position', async () => {
    await newSession('race');
    const write = () =>
      sessions.append('race', 1, { kind: 'user_message', run_id: 'r', text: 'hi', agent_id: 'zero', model: 'm', voice_mode: 'full' });
    const outcomes = await Promise.allSettled([write(), write(), write()]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
    expect(rejected.map((r) => r.reason.code)).toEqual(['conflict', 'conflict']);
    expect(await sessions.readLog('race')).toHaveLength(1);
  });

  it('keeps a record over the item size limit in S3 and reads it back whole', async () => {
    await newSession('big');
    const content = 'z'.repeat(OFFLOAD_BYTES + 50_000);
    const before = sessions.stats.bytes;
    await sessions.append('big', 1, { kind: 'tool_results', run_id: 'r', step: 1, results: [{ type: 'tool_result', tool_use_id: 't', content }] });
    expect(sessions.stats.bytes - before).toBeLessThan(1000);
    const [record] = await sessions.readLog('big');
    expect(record).toMatchObject({ kind: 'tool_results', results: [{ content }] });
    expect((await artifacts.list('sessions/big/log/')).length).toBe(1);
  });

  it('reads the log after a position, in order, across pages', async () => {
    await newSession('long');
    for (let seq = 1; seq <= 30; seq++) {
      await sessions.append('long', seq, { kind: 'assistant', run_id: 'r', step: seq, agent_id: 'zero', usage, content: [{ type: 'text', text: `${seq} ${'p'.repeat(40_000)}` }] });
    }
    const tail = await sessions.readLog('long', 25);
    expect(tail.map((r) => r.seq)).toEqual([26, 27, 28, 29, 30]);
    expect((await sessions.readLog('long')).map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('the S3 agent catalog picks up a changed file by ETag and keeps good files beside a bad one', async () => {
    const s3 = createS3Client(stack.store);
    const put = (key: string, body: string) => s3.send(new PutObjectCommand({ Bucket: stack.store.bucket, Key: key, Body: body }));
    await put('agents/alpha.md', '---\nname: Alpha\ndescription: first\n---\n## Role\nOne.\n');
    await put('agents/beta.md', '---\nname: Beta\n---\n');
    const catalog = new S3AgentCatalog(s3, stack.store.bucket, { revalidateMs: 0 });
    let snapshot = await catalog.load();
    expect(snapshot.agents.get('alpha')?.role).toBe('One.');
    expect(snapshot.errors).toEqual([{ file: 'agents/beta.md', field: 'description', message: expect.any(String) }]);
    await put('agents/alpha.md', '---\nname: Alpha\ndescription: first\n---\n## Role\nTwo.\n');
    snapshot = await catalog.load();
    expect(snapshot.agents.get('alpha')?.role).toBe('Two.');
  });
});
