import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ZeroError } from '../errors';
import type { ArtifactStore } from './artifact-store';
import {
  RECORD_VERSION,
  logRecordSchema,
  sessionArtifactSchema,
  sessionMetaSchema,
  type LogRecord,
  type NewLogRecord,
  type SessionArtifact,
  type SessionMeta,
} from './records';

/** Items over this size go to S3 and the log keeps a pointer (DynamoDB's limit is 400 KB). */
export const OFFLOAD_BYTES = 300_000;

const sessionKey = (id: string) => `SESSION#${id}`;
const logKey = (seq: number) => `LOG#${String(seq).padStart(12, '0')}`;

/** What the store has written, for benchmarks and the growth check. */
export interface WriteStats {
  writes: number;
  bytes: number;
}

/**
 * Sessions and their append-only logs in DynamoDB: one item per record, sort
 * key = zero-padded sequence number, written with `attribute_not_exists` so two
 * writers racing for a sequence number are detected rather than merged.
 */
export class SessionStore {
  readonly stats: WriteStats = { writes: 0, bytes: 0 };

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly artifacts: ArtifactStore,
  ) {}

  async createSession(meta: Omit<SessionMeta, 'v'>): Promise<SessionMeta> {
    const item = { v: 1 as const, ...meta };
    await this.put({ pk: sessionKey(meta.session_id), sk: 'META', ...item }, `session ${meta.session_id} already exists`);
    return item;
  }

  async getSession(id: string): Promise<SessionMeta | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: sessionKey(id), sk: 'META' } }));
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...rest } = Item;
    return sessionMetaSchema.parse(rest);
  }

  /** Loads a session or fails with a 404. */
  async requireSession(id: string): Promise<SessionMeta> {
    const session = await this.getSession(id);
    if (!session) throw new ZeroError('session_not_found', `session "${id}" does not exist`, 404, { field: 'session_id' });
    return session;
  }

  async updateSession(id: string, fields: Partial<Pick<SessionMeta, 'title' | 'agent_id' | 'project_id' | 'voice_mode' | 'updated_at'>>): Promise<void> {
    const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
    if (entries.length === 0) return;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = entries.map(([key, value], i) => {
      names[`#f${i}`] = key;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
    this.count({ pk: sessionKey(id), ...values });
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: sessionKey(id), sk: 'META' },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** The session's log in order, from `afterSeq` (exclusive) on. */
  async readLog(id: string, afterSeq = 0): Promise<LogRecord[]> {
    const records: LogRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': sessionKey(id), ':from': logKey(afterSeq + 1), ':to': 'LOG#~' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) records.push(await this.decode(item));
      start = page.LastEvaluatedKey;
    } while (start);
    return records;
  }

  /**
   * Appends one record at `seq`. Fails with a 409 `conflict` when another
   * writer took that place first. Records over OFFLOAD_BYTES go to S3.
   */
  async append(sessionId: string, seq: number, record: NewLogRecord, at = new Date().toISOString()): Promise<LogRecord> {
    const full = { v: RECORD_VERSION, seq, at, ...record } as LogRecord;
    const body = JSON.stringify(full);
    let item: Record<string, unknown> = { pk: sessionKey(sessionId), sk: logKey(seq), ...full };
    if (Buffer.byteLength(body) > OFFLOAD_BYTES) {
      const key = `sessions/${sessionId}/log/${String(seq).padStart(12, '0')}.json`;
      await this.artifacts.put(key, body, 'application/json');
      item = { pk: sessionKey(sessionId), sk: logKey(seq), v: full.v, seq, at, run_id: full.run_id, kind: full.kind, offload: key };
    }
    await this.put(item, `log position ${seq} of session ${sessionId} was taken by another writer`);
    return full;
  }

  /** Records a file a tool wrote for this session; one item per artifact, beside the log. */
  async recordArtifact(sessionId: string, artifact: Omit<SessionArtifact, 'v'>): Promise<void> {
    const item = { pk: sessionKey(sessionId), sk: `ARTIFACT#${artifact.key}`, v: 1, ...artifact };
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
          ExpressionAttributeValues: { ':pk': sessionKey(sessionId), ':prefix': 'ARTIFACT#' },
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

  private async put(item: Record<string, unknown>, conflictMessage: string): Promise<void> {
    this.count(item);
    try {
      await this.db.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === 'ConditionalCheckFailedException') {
        throw new ZeroError('conflict', conflictMessage, 409);
      }
      throw error;
    }
  }

  private count(item: Record<string, unknown>) {
    this.stats.writes += 1;
    this.stats.bytes += Buffer.byteLength(JSON.stringify(item));
  }
}
