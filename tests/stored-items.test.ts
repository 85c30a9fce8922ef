import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '@zero/runtime/auth/api-keys';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { LeaseStore } from '@zero/runtime/store/lease-store';
import { ProjectMemberStore } from '@zero/runtime/store/project-member-store';
import { ReportOwnerStore } from '@zero/runtime/store/report-owner-store';
import { SessionStore } from '@zero/runtime/store/session-store';
import { StoredItemError } from '@zero/runtime/store/stored-item';
import { StreamSlots } from '@zero/runtime/store/stream-slots';
import { WebhookStore } from '@zero/integrations/webhooks/webhook-store';
import { createDynamoClient, createS3Client } from '@zero/runtime/store/clients';
import { managedAgentStore } from '@zero/integrations/managed';
import { startLocalStack, type LocalStack } from '../local/stack';

const fixtures = join(import.meta.dirname, '../packages/runtime/src/store/fixtures');
const read = (item: string, file: string) => JSON.parse(readFileSync(join(fixtures, item, file), 'utf8')) as Record<string, unknown>[];
const SESSION = '5f0c2b1e-8d7a-4c39-9e7f-1a2b3c4d5e6f';

// Items written by today's deploys, some without a version: after this deploy every store still reads them.
describe('items as deployed DynamoDB tables hold them today, read through the stores', () => {
  let stack: LocalStack;
  let sessions: SessionStore;
  const put = (item: Record<string, unknown>) => sessions.db.send(new PutCommand({ TableName: sessions.table, Item: item }));

  beforeAll(async () => {
    stack = await startLocalStack();
    const db = createDynamoClient(stack.store);
    sessions = new SessionStore(db, stack.store.table, new ArtifactStore(createS3Client(stack.store), stack.store.bucket));
    const unversioned = ['session-member', 'inbox-message', 'event-batch', 'run-lease', 'api-key', 'user-api-key', 'webhook-delivery', 'stream-slots'];
    const versioned = ['session-meta', 'log-record', 'session-artifact', 'session-summary', 'project-claim', 'project-member', 'report-owner'];
    for (const item of unversioned) for (const stored of read(item, 'v0.json')) await put(stored);
    for (const item of versioned) for (const stored of read(item, 'v1.json')) await put(stored);
  });
  afterAll(() => stack?.stop());

  it('a session: its metadata, members, log, events, inbox, artifacts, lease and summary', async () => {
    expect(await sessions.getSession(SESSION)).toMatchObject({ title: 'Who depends on lodash?', strategy: 'enqueue' });
    expect((await sessions.listMembers(SESSION)).map((m) => [m.user_id, m.role])).toEqual([
      ['alice', 'owner'],
      ['jwt:bob', 'viewer'],
    ]);
    expect((await sessions.readLog(SESSION)).map((r) => r.kind)).toEqual(['user_message', 'assistant', 'tool_results', 'assistant', 'run_end']);
    expect(await sessions.lastLogSeq(SESSION)).toBe(5);
    expect((await sessions.readEvents(SESSION)).map((b) => [b.seq, b.events.at(-1)?.type])).toEqual([
      [1, 'tool_call'],
      [2, 'done'],
      [3, 'done'],
    ]);
    expect((await sessions.peekInbox(SESSION, 5)).map((m) => [m.message_id, m.text])).toEqual([
      [2, 'And which version?'],
      [3, 'thanks'],
    ]);
    expect((await sessions.listArtifacts(SESSION)).map((a) => a.path)).toEqual(['artifacts/report.md', `reports/${SESSION}.md`]);
    expect(await new LeaseStore(sessions.db, sessions.table, sessions).inspect(SESSION)).toEqual({ run_id: 'run_a', until: 1795341633500, active: false, abandoned: true });
    expect(await new WebhookStore(sessions.db, sessions.table).getSummary(SESSION)).toMatchObject({ status: 'accepted', project_id: 'acme/shop' });
    const { sessions: listed } = await sessions.listSessionsFor('jwt:bob', 10);
    expect(listed.map((s) => [s.session_id, s.role])).toEqual([[SESSION, 'viewer']]);
  });

  it('keys, delivery claims, project access and stream places', async () => {
    expect((await new ApiKeyStore(sessions.db, sessions.table).list('alice')).map((k) => k.label)).toEqual(['laptop']);
    const webhooks = new WebhookStore(sessions.db, sessions.table);
    const winner = await webhooks.claimDelivery('shop-prs', { delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958' }, { session_id: 'later', run_id: 'run_z' }, 60);
    expect(winner).toEqual({ session_id: SESSION, run_id: 'run_a' });
    expect((await new ProjectMemberStore(sessions.db, sessions.table).listMembers('acme/shop')).map((m) => m.user_id)).toEqual(['alice', 'bob']);
    expect(await new ReportOwnerStore(sessions.db, sessions.table).owners('acme/shop')).toEqual(new Map([[`${SESSION}.md`, SESSION]]));
    // alice's item holds two places of streams that have ended: with a limit of 1 she gets one place, then none.
    const slots = new StreamSlots(sessions.db, sessions.table, 1);
    expect(await slots.acquire('alice', 60_000)).toBeTypeOf('function');
    expect(await slots.acquire('alice', 60_000)).toBeUndefined();
  });

  it('a managed agent version from before agents had owners (an S3 object) reads as ownerless', async () => {
    const stored = readFileSync(join(fixtures, 'managed-agent-version', 'v1.json'), 'utf8');
    const { id } = JSON.parse(stored) as { id: string };
    const s3 = createS3Client(stack.store);
    await new ArtifactStore(s3, stack.store.bucket).put(`agents/managed/${id}/v000001.json`, stored);
    const agent = await managedAgentStore(s3, stack.store.bucket).get(id);
    expect(agent?.versions.map((v) => [v.v, v.version, v.name, v.owner])).toEqual([[2, 1, 'Triage', null]]);
  });

  it('an unreadable item fails the read with a StoredItemError naming it, instead of vanishing from the list', async () => {
    await put({ pk: `SESSION#${SESSION}`, sk: 'ARTIFACT#broken', v: 1, key: 'broken', path: 'broken.md', at: '2026-11-22T10:00:04.000Z' });
    const failure = await sessions.listArtifacts(SESSION).catch((error: unknown) => error);
    expect(StoredItemError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain(`stored session artifact SESSION#${SESSION} ARTIFACT#broken is unreadable`);
  });
});
