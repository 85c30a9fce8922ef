import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ZeroError } from '../errors';
import { streamEventSchema, type StreamEvent } from '../wire';
import type { ArtifactStore } from './artifact-store';
import { setExpression } from './expressions';
import { keys, pad } from './keys';
import {
  RECORD_VERSION,
  inboxMessageSchema,
  logRecordSchema,
  memberSchema,
  sessionArtifactSchema,
  sessionMetaSchema,
  type InboxMessage,
  type LogRecord,
  type Member,
  type NewLogRecord,
  type Role,
  type SessionArtifact,
  type SessionMeta,
} from './records';

/**
 * A page cursor of `listSessionsFor` is the query's LastEvaluatedKey: the
 * user's membership item's table and index keys. A cursor is refused unless
 * it is exactly that shape, for this user: DynamoDB answers any other start
 * key with an error, and another user's would list their sessions.
 */
function decodeSessionsCursor(cursor: string, userId: string): Record<string, unknown> {
  const refused = () => new ZeroError('invalid_request', 'cursor: not a cursor this API returned for you', 400, { field: 'cursor' });
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const key = z
    .strictObject({
      pk: z.string().startsWith('SESSION#').max(300),
      sk: z.literal(keys.member(userId)),
      gsi1pk: z.literal(keys.userSessions(userId)),
      gsi1sk: z.string().min(1).max(300),
    })
    .safeParse(decoded);
  if (!key.success) throw refused();
  return key.data;
}

/** Items over this size go to S3 and the log keeps a pointer (DynamoDB's limit is 400 KB). */
export const OFFLOAD_BYTES = 300_000;

/** What the store has written, for benchmarks and the growth check. */
export interface WriteStats {
  writes: number;
  bytes: number;
}

/** A batch of streamed events stored under one sequence number; event ids are `<seq>.<index>`. */
export interface EventBatch {
  seq: number;
  run_id: string;
  events: StreamEvent[];
}

export const isConditionFailure = (error: unknown) =>
  error instanceof ConditionalCheckFailedException || (error as { name?: string })?.name === 'ConditionalCheckFailedException';

/**
 * Sessions in DynamoDB: metadata, members, an append-only record log, an
 * event log for live views and an inbox of waiting messages. The logs are one
 * item per entry, sort key = zero-padded sequence number, written with
 * `attribute_not_exists` so two writers racing for a position are detected.
 */
export class SessionStore {
  readonly stats: WriteStats = { writes: 0, bytes: 0 };

  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
    private readonly artifacts: ArtifactStore,
  ) {}

  // --- sessions ---------------------------------------------------------------------------

  async createSession(meta: Omit<SessionMeta, 'v'>, owner?: { user_id: string; name?: string }): Promise<SessionMeta> {
    const item = { v: 1 as const, ...meta };
    await this.putNew({ pk: keys.session(meta.session_id), sk: keys.meta, ...item }, `session ${meta.session_id} already exists`);
    if (owner) await this.putMember(item, { user_id: owner.user_id, name: owner.name, role: 'owner', added_at: meta.created_at });
    return item;
  }

  async getSession(id: string): Promise<SessionMeta | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.session(id), sk: keys.meta } }));
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, inbox_seq: _inbox, ...rest } = Item;
    return sessionMetaSchema.parse(rest);
  }

  /** Loads a session or fails with a 404. */
  async requireSession(id: string): Promise<SessionMeta> {
    const session = await this.getSession(id);
    if (!session) throw new ZeroError('session_not_found', `session "${id}" does not exist`, 404, { field: 'session_id' });
    return session;
  }

  async updateSession(
    id: string,
    fields: Partial<Pick<SessionMeta, 'title' | 'agent_id' | 'project_id' | 'voice_mode' | 'strategy' | 'updated_at'>>,
  ): Promise<void> {
    const update = setExpression(fields);
    if (!update) return;
    this.count({ pk: keys.session(id), ...update.values });
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(id), sk: keys.meta },
          UpdateExpression: update.set,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ZeroError('session_not_found', `session "${id}" does not exist`, 404);
      throw error;
    }
  }

  /** Removes every item of the session and its objects in S3 (offloaded records, artifacts). */
  async deleteSession(id: string): Promise<void> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.session(id) },
          ProjectionExpression: 'pk, sk',
          ExclusiveStartKey: start,
        }),
      );
      const items = page.Items ?? [];
      for (let i = 0; i < items.length; i += 25) {
        let requests = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
        for (let attempt = 0; requests.length > 0 && attempt < 8; attempt++) {
          const result = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } }));
          requests = (result.UnprocessedItems?.[this.table] ?? []) as typeof requests;
          if (requests.length) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
    await this.artifacts.deletePrefix(`sessions/${id}/`);
  }

  // --- members ----------------------------------------------------------------------------

  async putMember(session: SessionMeta, member: Member): Promise<void> {
    const item = {
      pk: keys.session(session.session_id),
      sk: keys.member(member.user_id),
      ...member,
      // The GSI lists a user's sessions, newest first.
      gsi1pk: keys.userSessions(member.user_id),
      gsi1sk: `${session.created_at}#${session.session_id}`,
    };
    this.count(item);
    await this.db.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  async getMember(sessionId: string, userId: string): Promise<Member | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.session(sessionId), sk: keys.member(userId) } }));
    return Item ? memberSchema.parse(pickMember(Item)) : undefined;
  }

  async listMembers(sessionId: string): Promise<Member[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :m)',
        ExpressionAttributeValues: { ':pk': keys.session(sessionId), ':m': 'MEMBER#' },
      }),
    );
    return (Items ?? []).map((item) => memberSchema.parse(pickMember(item)));
  }

  /**
   * Changes a member's role or removes them, refusing to leave a session
   * without an owner. The owner count is checked, then the change is written
   * conditionally on the member's current role, so two owners demoting each
   * other at once cannot both succeed.
   */
  async changeMember(sessionId: string, userId: string, role: Role | undefined): Promise<void> {
    const members = await this.listMembers(sessionId);
    const current = members.find((m) => m.user_id === userId);
    if (!current) throw new ZeroError('not_found', `user "${userId}" is not a member of this session`, 404, { field: 'user_id' });
    const owners = members.filter((m) => m.role === 'owner');
    if (current.role === 'owner' && role !== 'owner' && owners.length <= 1) {
      throw new ZeroError('conflict', 'the last owner cannot leave or be demoted; make someone else an owner first', 409);
    }
    const key = { pk: keys.session(sessionId), sk: keys.member(userId) };
    try {
      if (role === undefined) {
        await this.db.send(
          new DeleteCommand({ TableName: this.table, Key: key, ConditionExpression: '#r = :r', ExpressionAttributeNames: { '#r': 'role' }, ExpressionAttributeValues: { ':r': current.role } }),
        );
      } else {
        this.count(key);
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'SET #r = :new',
            ConditionExpression: '#r = :r',
            ExpressionAttributeNames: { '#r': 'role' },
            ExpressionAttributeValues: { ':r': current.role, ':new': role },
          }),
        );
      }
    } catch (error) {
      if (isConditionFailure(error)) throw new ZeroError('conflict', 'the membership changed meanwhile; try again', 409);
      throw error;
    }
    if (current.role === 'owner' && role !== 'owner') {
      // Re-check after the write: if a concurrent change left no owner, restore this one.
      const after = await this.listMembers(sessionId);
      if (!after.some((m) => m.role === 'owner')) {
        const session = await this.requireSession(sessionId);
        await this.putMember(session, current);
        throw new ZeroError('conflict', 'the last owner cannot leave or be demoted; make someone else an owner first', 409);
      }
    }
  }

  /** A user's sessions, newest first, a page at a time (GSI `gsi1`, never a scan). */
  async listSessionsFor(userId: string, limit: number, cursor?: string): Promise<{ sessions: (SessionMeta & { role: Role })[]; next_cursor?: string }> {
    const start = cursor ? decodeSessionsCursor(cursor, userId) : undefined;
    const page = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :u',
        ExpressionAttributeValues: { ':u': keys.userSessions(userId) },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    const sessions: (SessionMeta & { role: Role })[] = [];
    for (const item of page.Items ?? []) {
      const sessionId = String(item.pk).slice('SESSION#'.length);
      const meta = await this.getSession(sessionId);
      if (meta) sessions.push({ ...meta, role: item.role as Role });
    }
    const next = page.LastEvaluatedKey ? Buffer.from(JSON.stringify(page.LastEvaluatedKey)).toString('base64url') : undefined;
    return { sessions, ...(next ? { next_cursor: next } : {}) };
  }

  // --- the record log ---------------------------------------------------------------------

  /** The session's log in order, from `afterSeq` (exclusive) on. */
  async readLog(id: string, afterSeq = 0): Promise<LogRecord[]> {
    const items = await this.queryRange(id, keys.log(afterSeq + 1), keys.logEnd);
    const records: LogRecord[] = [];
    for (const item of items) records.push(await this.decode(item));
    return records;
  }

  /**
   * Writes one record at `seq`. Fails with a 409 `conflict` when another
   * writer took that place first. Records over OFFLOAD_BYTES go to S3.
   */
  async append(sessionId: string, seq: number, record: NewLogRecord, at = new Date().toISOString()): Promise<LogRecord> {
    const full = { v: RECORD_VERSION, seq, at, ...record } as LogRecord;
    const body = JSON.stringify(full);
    let item: Record<string, unknown> = { pk: keys.session(sessionId), sk: keys.log(seq), ...full };
    if (Buffer.byteLength(body) > OFFLOAD_BYTES) {
      const key = `sessions/${sessionId}/log/${pad(seq)}.json`;
      await this.artifacts.put(key, body, 'application/json');
      item = { pk: keys.session(sessionId), sk: keys.log(seq), v: full.v, seq, at, run_id: full.run_id, kind: full.kind, offload: key };
    }
    await this.putNew(item, `log position ${seq} of session ${sessionId} was taken by another writer`);
    return full;
  }

  /** The last `count` records of the log, in order. */
  async readLogTail(id: string, count: number): Promise<LogRecord[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': keys.session(id), ':p': 'LOG#' },
        ScanIndexForward: false,
        Limit: count,
      }),
    );
    const records: LogRecord[] = [];
    for (const item of (Items ?? []).reverse()) records.push(await this.decode(item));
    return records;
  }

  /** The highest sequence number written in the record log (0 when empty). */
  async lastLogSeq(id: string): Promise<number> {
    return this.lastSeq(id, 'LOG#');
  }

  // --- the event log ----------------------------------------------------------------------

  async putEvents(sessionId: string, batch: EventBatch): Promise<void> {
    let item: Record<string, unknown> = { pk: keys.session(sessionId), sk: keys.event(batch.seq), ...batch };
    const body = JSON.stringify(batch);
    if (Buffer.byteLength(body) > OFFLOAD_BYTES) {
      const key = `sessions/${sessionId}/events/${pad(batch.seq)}.json`;
      await this.artifacts.put(key, body, 'application/json');
      item = { pk: keys.session(sessionId), sk: keys.event(batch.seq), seq: batch.seq, run_id: batch.run_id, offload: key };
    }
    await this.putNew(item, `event position ${batch.seq} of session ${sessionId} was taken by another writer`);
  }

  /** Event batches after `afterSeq` (exclusive), in order. */
  async readEvents(sessionId: string, afterSeq = 0, limit?: number): Promise<EventBatch[]> {
    const items = await this.queryRange(sessionId, keys.event(afterSeq + 1), keys.eventEnd, limit);
    const batches: EventBatch[] = [];
    for (const item of items) {
      const raw = typeof item.offload === 'string' ? await this.artifacts.getJson<EventBatch>(item.offload) : (item as unknown as EventBatch);
      if (!raw) continue;
      const events = (raw.events ?? []).map((e) => streamEventSchema.parse(e));
      batches.push({ seq: Number(raw.seq), run_id: String(raw.run_id), events });
    }
    return batches;
  }

  async lastEventSeq(id: string): Promise<number> {
    return this.lastSeq(id, 'EVT#');
  }

  // --- the inbox --------------------------------------------------------------------------

  /** Accepts a message: numbers it in arrival order (an atomic counter on the session) and stores it. */
  async enqueue(sessionId: string, message: Omit<InboxMessage, 'message_id'>): Promise<InboxMessage> {
    this.count({ pk: keys.session(sessionId) });
    let n: number;
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(sessionId), sk: keys.meta },
          UpdateExpression: 'SET inbox_seq = if_not_exists(inbox_seq, :zero) + :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      n = Number(Attributes?.inbox_seq);
    } catch (error) {
      if (isConditionFailure(error)) throw new ZeroError('session_not_found', `session "${sessionId}" does not exist`, 404);
      throw error;
    }
    const item = { message_id: n, ...message };
    await this.putNew({ pk: keys.session(sessionId), sk: keys.inbox(n), ...item }, `inbox position ${n} was taken`);
    return item;
  }

  /** The oldest waiting messages. */
  async peekInbox(sessionId: string, limit = 1): Promise<InboxMessage[]> {
    const items = await this.queryRange(sessionId, keys.inbox(0), keys.inboxEnd, limit);
    return items.map((item) => {
      const { pk: _pk, sk: _sk, ...rest } = item;
      return inboxMessageSchema.parse(rest);
    });
  }

  async removeFromInbox(sessionId: string, messageId: number): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: keys.session(sessionId), sk: keys.inbox(messageId) } }));
  }

  // --- helpers ----------------------------------------------------------------------------

  private async queryRange(sessionId: string, from: string, to: string, limit?: number): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.session(sessionId), ':from': from, ':to': to },
          ExclusiveStartKey: start,
          ...(limit ? { Limit: limit - out.length } : {}),
        }),
      );
      out.push(...((page.Items ?? []) as Record<string, unknown>[]));
      start = page.LastEvaluatedKey;
    } while (start && (!limit || out.length < limit));
    return out;
  }

  private async lastSeq(id: string, prefix: string): Promise<number> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': keys.session(id), ':p': prefix },
        ScanIndexForward: false,
        Limit: 1,
        ProjectionExpression: 'seq',
      }),
    );
    return Number(Items?.[0]?.seq ?? 0);
  }

  /** Records a file a tool wrote for this session; one item per artifact, beside the log. */
  async recordArtifact(sessionId: string, artifact: Omit<SessionArtifact, 'v'>): Promise<void> {
    const item = { pk: keys.session(sessionId), sk: `ARTIFACT#${artifact.key}`, v: 1, ...artifact };
    this.count(item);
    await this.db.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  /** The files tools wrote for this session, oldest first. */
  async listArtifacts(sessionId: string): Promise<SessionArtifact[]> {
    const out: SessionArtifact[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.session(sessionId), ':prefix': 'ARTIFACT#' },
          ExclusiveStartKey: start,
        }),
      );
      for (const { pk: _pk, sk: _sk, ...rest } of page.Items ?? []) {
        const parsed = sessionArtifactSchema.safeParse(rest);
        if (parsed.success) out.push(parsed.data);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out.sort((a, b) => a.at.localeCompare(b.at));
  }

  private async decode(item: Record<string, unknown>): Promise<LogRecord> {
    const { pk: _pk, sk: _sk, offload, ...rest } = item;
    const value = typeof offload === 'string' ? await this.artifacts.getJson(offload) : rest;
    const parsed = logRecordSchema.safeParse(value);
    if (!parsed.success) throw new Error(`stored record ${String(item.sk)} of ${String(item.pk)} is unreadable: ${parsed.error.message}`);
    return parsed.data;
  }

  private async putNew(item: Record<string, unknown>, conflictMessage: string): Promise<void> {
    this.count(item);
    try {
      await this.db.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (isConditionFailure(error)) throw new ZeroError('conflict', conflictMessage, 409);
      throw error;
    }
  }

  /** Counts a write (approximate item size: its JSON). */
  count(item: Record<string, unknown>) {
    this.stats.writes += 1;
    this.stats.bytes += Buffer.byteLength(JSON.stringify(item));
  }
}

function pickMember(item: Record<string, unknown>) {
  return { user_id: item.user_id, name: item.name, role: item.role, added_at: item.added_at };
}
