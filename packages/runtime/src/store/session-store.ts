import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ZeroError } from '@zero/agent/errors';
import type { ForkPoint } from '@zero/agent/wire';
import type { ArtifactStore } from './artifact-store';
import { setExpression } from './expressions';
import { eventBatchItem, eventBatchKey, eventBatchObjectKey, eventPrefix, eventRange, type EventBatch } from './items/event-batch';
import type { Role } from './items/fields';
import { inboxMessageItem, inboxMessageKey, inboxRange, type InboxMessage } from './items/inbox-message';
import { LOG_ITEM_RECORDS_VERSION, MAX_RECORDS_PER_ITEM, RECORD_VERSION, logItem, logPrefix, logRange, logRecordKey, logRecordObjectKey, type LogRecord, type NewLogRecord } from './items/log-record';
import { sessionArtifactItem, sessionArtifactKey, sessionArtifactPrefix, type SessionArtifact } from './items/session-artifact';
import { seenEventSeq, sessionMemberIndex, sessionMemberItem, sessionMemberKey, type Member } from './items/session-member';
import { sessionMetaItem, sessionMetaKey, type SessionMeta } from './items/session-meta';
import { sessionRewindItem, sessionRewindKey, sessionRewindPrefix, type SessionRewind } from './items/session-rewind';
import { sessionPermissionsItem, sessionPermissionsKey, type SessionPermissions } from './items/session-permissions';
import { activeBranch } from './branches';
import { runLeaseItem, runLeaseKey } from './items/run-lease';
import { keys, objectKeys } from './keys';
import { changeRoleKeepingAnOwner } from './membership';
import { decodeSessionsCursor, encodeSessionsCursor } from './sessions-cursor';
import { StoredItemError, type ItemKey } from './stored-item';
import { Table, loadOffloaded, offloadIfLarge, type Item, type WriteStats } from './table';

export { OFFLOAD_BYTES, isConditionFailure, type WriteStats } from './table';
export type { EventBatch } from './items/event-batch';

/** How many of a user's sessions one title search looks through before it returns a cursor to go on with. */
export const SESSION_SEARCH_SPAN = 1000;

const forkLinkSchema = z.object({ session_id: z.string(), log_seq: z.number().int(), forked_by: z.string(), at: z.string() });

const notFound = (id: string) => new ZeroError('session_not_found', `session "${id}" does not exist`);

/**
 * Sessions in DynamoDB: metadata, members, an append-only record log, an
 * event log for live views, an inbox of waiting messages and the artifacts
 * tools wrote. The logs are one item per entry, sort key = zero-padded
 * sequence number, written with `attribute_not_exists` so two writers racing
 * for a position are detected.
 */
export class SessionStore {
  /** Every put and update this store (and the lease store, through `count`) sent. */
  readonly stats: WriteStats;
  private readonly items: Table;
  /** Fork points read so far (null: not a fork), by session. */
  private readonly forkPoints = new Map<string, ForkPoint | null>();

  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
    private readonly artifacts: ArtifactStore,
  ) {
    this.items = new Table(db, table);
    this.stats = this.items.stats;
  }

  // --- sessions ---------------------------------------------------------------------------

  async createSession(meta: Omit<SessionMeta, 'v'>, owner?: { user_id: string; name?: string }): Promise<SessionMeta> {
    const item: SessionMeta = { v: 1, ...meta };
    await this.putNew({ ...sessionMetaKey(meta.session_id), ...item }, `session ${meta.session_id} already exists`);
    if (owner) await this.putMember(item, { user_id: owner.user_id, name: owner.name, role: 'owner', added_at: meta.created_at });
    return item;
  }

  async getSession(id: string): Promise<SessionMeta | undefined> {
    const item = await this.items.get(sessionMetaKey(id));
    const meta = item && sessionMetaItem.decode(item);
    // A run reads its session before its log: the log's reads then need no read of their own to learn the fork point.
    if (meta) this.rememberForkPoint(id, meta);
    return meta;
  }

  /** Loads a session or fails with a 404. */
  async requireSession(id: string): Promise<SessionMeta> {
    const session = await this.getSession(id);
    if (!session) throw new ZeroError('session_not_found', `session "${id}" does not exist`, { field: 'session_id' });
    return session;
  }

  async updateSession(
    id: string,
    fields: Partial<Pick<SessionMeta, 'title' | 'agent_id' | 'project_id' | 'voice_mode' | 'strategy' | 'updated_at' | 'has_permission_overrides' | 'awaiting_approval_since' | 'has_budget'>>,
  ): Promise<void> {
    const update = setExpression(fields);
    if (!update) return;
    const written = await this.items.update(sessionMetaKey(id), { set: update.set, condition: 'attribute_exists(pk)', names: update.names, values: update.values });
    if (!written) throw notFound(id);
  }

  /**
   * Removes every item of the session and its objects in S3 (offloaded records, artifacts), and a fork's
   * link in its parent. A session with forks is refused (409): their histories read its records.
   */
  async deleteSession(id: string): Promise<void> {
    await this.refuseIfForked(id);
    const point = await this.forkPointOf(id);
    if (point) await this.items.delete({ pk: keys.session(point.session_id), sk: keys.fork(id) });
    this.forkPoints.delete(id);
    let start: Item | undefined;
    do {
      const page = await this.items.queryPage({ pk: keys.session(id), projection: 'pk, sk' }, start);
      await this.items.deleteAll(page.items as unknown as ItemKey[]);
      start = page.next;
    } while (start);
    await this.artifacts.deletePrefix(objectKeys.session(id));
  }

  /** A 409 when the session has forks: their histories read its records, so it cannot be deleted before them. */
  async refuseIfForked(id: string): Promise<void> {
    const forks = await this.items.query({ pk: keys.session(id), prefix: keys.forkPrefix, limit: 1, projection: 'pk, sk' });
    if (forks.length) throw new ZeroError('conflict', `session "${id}" has forks, whose histories read its records; delete its forks first`);
  }

  // --- members ----------------------------------------------------------------------------

  async putMember(session: SessionMeta, member: Member): Promise<void> {
    await this.items.put({
      ...sessionMemberKey(session.session_id, member.user_id),
      v: sessionMemberItem.version,
      ...member,
      ...sessionMemberIndex(member.user_id, session),
    });
  }

  async getMember(sessionId: string, userId: string): Promise<Member | undefined> {
    const item = await this.items.get(sessionMemberKey(sessionId, userId));
    return item && sessionMemberItem.decode(item);
  }

  async listMembers(sessionId: string): Promise<Member[]> {
    const items = await this.items.query({ pk: keys.session(sessionId), prefix: keys.memberPrefix });
    return items.map((item) => sessionMemberItem.decode(item));
  }

  /** Changes a member's role or removes them, refusing to leave a session without an owner. */
  async changeMember(sessionId: string, userId: string, role: Role | undefined): Promise<void> {
    await changeRoleKeepingAnOwner(
      {
        table: this.items,
        members: () => this.listMembers(sessionId),
        key: (user) => sessionMemberKey(sessionId, user),
        restore: async (member) => this.putMember(await this.requireSession(sessionId), member),
        notMember: (user) => new ZeroError('not_found', `user "${user}" is not a member of this session`, { field: 'user_id' }),
        lastOwner: () => new ZeroError('conflict', 'the last owner cannot leave or be demoted; make someone else an owner first'),
      },
      userId,
      role,
    );
  }

  /**
   * What a member has seen of the session's events: the highest event batch
   * they opened the session at or followed to. Only ever moves forward.
   */
  async markSeen(sessionId: string, userId: string, seq: number): Promise<void> {
    await this.items.update(sessionMemberKey(sessionId, userId), {
      set: 'SET seen_event_seq = :s',
      condition: 'attribute_exists(pk) AND (attribute_not_exists(seen_event_seq) OR seen_event_seq < :s)',
      values: { ':s': seq },
    });
  }

  /**
   * A user's sessions, newest first, a page at a time (GSI `gsi1`, never a
   * scan). With `unread`, each says whether its events went past what the
   * user has seen (one more read per session). With `search`, only sessions whose title contains it (any case):
   * one call looks through at most SESSION_SEARCH_SPAN of the user's
   * sessions, and `next_cursor` goes on from where it stopped.
   */
  async listSessionsFor(
    userId: string,
    limit: number,
    cursor?: string,
    { search, unread }: { search?: string; unread?: boolean } = {},
  ): Promise<{ sessions: (SessionMeta & { role: Role; unread?: boolean })[]; next_cursor?: string }> {
    let start = cursor ? decodeSessionsCursor(cursor, userId) : undefined;
    const needle = search?.trim().toLowerCase();
    const found: { item: Item; meta: SessionMeta }[] = [];
    let looked = 0;
    let next: Item | undefined;
    do {
      const pageSize = needle ? Math.min(100, SESSION_SEARCH_SPAN - looked) : limit;
      const page = await this.items.queryPage({ pk: keys.userSessions(userId), index: 'gsi1', newestFirst: true, limit: pageSize }, start);
      // A membership can outlive its session by a moment: deleteSession removes the meta item first.
      const metas = await Promise.all(page.items.map((item) => this.getSession(keys.sessionIdOf(String(item.pk)))));
      next = page.next;
      for (const [i, item] of page.items.entries()) {
        looked++;
        const meta = metas[i];
        if (meta && (!needle || meta.title.toLowerCase().includes(needle))) found.push({ item, meta });
        if (found.length === limit && (i < page.items.length - 1 || page.next)) {
          // Full: the next page starts after this membership (its keys are a query's start key).
          next = { pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk };
          break;
        }
      }
      start = next;
    } while (needle && found.length < limit && next && looked < SESSION_SEARCH_SPAN);
    const sessions = await Promise.all(
      found.map(async ({ item, meta }) => {
        const { role } = sessionMemberItem.decode(item);
        return unread ? { ...meta, role, unread: (await this.lastEventSeq(meta.session_id)) > seenEventSeq(item) } : { ...meta, role };
      }),
    );
    return { sessions, ...(next ? { next_cursor: encodeSessionsCursor(next) } : {}) };
  }

  // --- the record log ---------------------------------------------------------------------

  /**
   * The session's log in order, from `afterSeq` (exclusive) on. A fork's log
   * is its parent's records up to the fork point, read from the parent's
   * partition (never copied), then its own, which go on from there.
   */
  async readLog(id: string, afterSeq = 0): Promise<LogRecord[]> {
    const records = await this.readAllBranches(id, afterSeq);
    // From the start: the active branch (an edit or a regenerate set the records of earlier branches aside).
    return afterSeq === 0 ? activeBranch(records) : records;
  }

  /** Every record of the log, those of earlier branches too (see `activeBranch`). */
  async readAllBranches(id: string, afterSeq = 0): Promise<LogRecord[]> {
    return this.chainRecords(id, afterSeq);
  }

  /** The `run_end` records of a session's log (a fork's with its parent's prefix), in order, without reading the other records' offloaded bodies. */
  readRunEnds(id: string): Promise<Extract<LogRecord, { kind: 'run_end' }>[]> {
    return this.readKind(id, 'run_end');
  }

  /**
   * The records of one kind in a session's log, every branch (a fork's with its parent's prefix), in order.
   * Only items that hold one are decoded: the other records' offloaded bodies are not read.
   */
  async readKind<K extends LogRecord['kind']>(id: string, kind: K): Promise<Extract<LogRecord, { kind: K }>[]> {
    const records = await this.chainRecords(id, 0, undefined, (item) => item.kind === kind || (Array.isArray(item.kinds) && item.kinds.includes(kind)));
    return records.filter((record): record is Extract<LogRecord, { kind: K }> => record.kind === kind);
  }

  /**
   * Writes one record at `seq`, or several at `seq` and the positions after
   * it (the caller reserved them all) in one item: one round trip. Fails with
   * a 409 `conflict` when another writer took that place first (a takeover
   * seals only positions after the last one written, so it never fills the
   * positions an item of several records holds). An item over OFFLOAD_BYTES
   * goes to S3. Returns the record written; of several, the last (what the
   * log now ends with), and `written` receives them all.
   */
  async append(sessionId: string, seq: number, record: NewLogRecord | readonly NewLogRecord[], at = new Date().toISOString(), written?: (records: LogRecord[]) => void): Promise<LogRecord> {
    const records = (Array.isArray(record) ? record : [record]).map((one, i) => ({ v: RECORD_VERSION, seq: seq + i, at, ...one }) as LogRecord);
    if (records.length === 0 || records.length > MAX_RECORDS_PER_ITEM) throw new Error(`a log item holds 1 to ${MAX_RECORDS_PER_ITEM} records, not ${records.length}`);
    const [first] = records as [LogRecord, ...LogRecord[]];
    const last = records.at(-1)!;
    const key = logRecordKey(sessionId, seq);
    const objectKey = logRecordObjectKey(sessionId, seq);
    const item =
      records.length === 1
        ? await offloadIfLarge(this.artifacts, key, first, { v: first.v, seq, at, run_id: first.run_id, kind: first.kind }, objectKey)
        : await offloadIfLarge(
            this.artifacts,
            key,
            { v: LOG_ITEM_RECORDS_VERSION, seq, last_seq: last.seq, at, run_id: first.run_id, kind: first.kind, kinds: records.map((r) => r.kind), records },
            { v: LOG_ITEM_RECORDS_VERSION, seq, last_seq: last.seq, at, run_id: first.run_id, kind: first.kind, kinds: records.map((r) => r.kind) },
            objectKey,
          );
    await this.putNew(item, `log position ${seq} of session ${sessionId} was taken by another writer`);
    written?.(records);
    return last;
  }

  /** The last `count` records of the log (a fork's reaching into its parent's when its own are fewer), in order. */
  async readLogTail(id: string, count: number): Promise<LogRecord[]> {
    return activeBranch(await this.chainLogTail(id, count));
  }

  /** The highest sequence number written in the record log (0 when empty; a fork without records of its own: its fork point). */
  async lastLogSeq(id: string): Promise<number> {
    return (await this.lastSeq(id, logPrefix, logItem.type, 'last_seq')) || ((await this.forkPointOf(id))?.log_seq ?? 0);
  }

  // --- the event log ----------------------------------------------------------------------

  async putEvents(sessionId: string, batch: EventBatch): Promise<void> {
    const body = { v: eventBatchItem.version, ...batch };
    const pointer = { v: body.v, seq: batch.seq, run_id: batch.run_id };
    const item = await offloadIfLarge(this.artifacts, eventBatchKey(sessionId, batch.seq), body, pointer, eventBatchObjectKey(sessionId, batch.seq));
    await this.putNew(item, `event position ${batch.seq} of session ${sessionId} was taken by another writer`);
  }

  /** Event batches after `afterSeq` (exclusive), in order (a fork's: its parent's up to the fork point, then its own). */
  async readEvents(sessionId: string, afterSeq = 0, limit?: number): Promise<EventBatch[]> {
    const items = await this.chainItems(sessionId, 'event', afterSeq, undefined, limit);
    return Promise.all(items.map(async (item) => eventBatchItem.decode(await this.loadBody(eventBatchItem.type, item), item as unknown as ItemKey)));
  }

  async lastEventSeq(id: string): Promise<number> {
    return (await this.lastSeq(id, eventPrefix, eventBatchItem.type)) || ((await this.forkPointOf(id))?.event_seq ?? 0);
  }

  // --- forks ------------------------------------------------------------------------------

  /**
   * Opens `fork` as a fork of `point.session_id`: four puts, whatever the
   * length of the history (nothing of the parent's logs is copied). The
   * lease item starts the fork's position counters at the fork point, so its
   * own records and events go on from its parent's numbering; the parent gets
   * a `FORK#<child>` link item.
   */
  async createFork(meta: Omit<SessionMeta, 'v' | 'forked_from'>, point: ForkPoint, owner: { user_id: string; name?: string }): Promise<SessionMeta> {
    await this.items.put({ ...runLeaseKey(meta.session_id), v: runLeaseItem.version, next_log: point.log_seq, next_event: point.event_seq });
    const session = await this.createSession({ ...meta, forked_from: point }, owner);
    await this.items.put({ pk: keys.session(point.session_id), sk: keys.fork(meta.session_id), v: 1, session_id: meta.session_id, log_seq: point.log_seq, forked_by: owner.user_id, at: meta.created_at });
    return session;
  }

  /** The forks made of a session, oldest first. */
  async listForks(sessionId: string): Promise<{ session_id: string; log_seq: number; forked_by: string; at: string }[]> {
    const items = await this.items.query({ pk: keys.session(sessionId), prefix: keys.forkPrefix });
    return items.map((item) => forkLinkSchema.parse(item)).sort((a, b) => a.at.localeCompare(b.at));
  }

  /**
   * The last event batch a fork at record `logSeq` keeps: the runs that ended
   * by then keep all their events; the run cut at the fork point keeps none
   * (its records up to the point are in the fork's history). Reads the event
   * items' keys and run ids only.
   */
  async eventCutFor(sessionId: string, logSeq: number): Promise<number> {
    const record = (await this.chainRecords(sessionId, logSeq - 1, logSeq)).find((r) => r.seq === logSeq);
    if (!record || record.kind === 'void') throw new ZeroError('invalid_request', `session "${sessionId}" has no history record ${logSeq}`, { field: 'at_event' });
    const batches = await this.chainItems(sessionId, 'event', 0, undefined, undefined, 'pk, sk, seq, run_id');
    const runId = record.run_id;
    if (record.kind === 'run_end') return Math.max(0, ...batches.filter((b) => b.run_id === runId).map((b) => Number(b.seq)));
    const first = batches.findIndex((b) => b.run_id === runId);
    const kept = first === -1 ? batches : batches.slice(0, first);
    return Math.max(0, ...kept.map((b) => Number(b.seq)));
  }

  // --- the inbox --------------------------------------------------------------------------

  /** Accepts a message: numbers it in arrival order (an atomic counter on the session) and stores it. */
  async enqueue(sessionId: string, message: Omit<InboxMessage, 'message_id'>): Promise<InboxMessage> {
    const counter = await this.items.update(sessionMetaKey(sessionId), {
      set: 'SET inbox_seq = if_not_exists(inbox_seq, :zero) + :one',
      condition: 'attribute_exists(pk)',
      values: { ':zero': 0, ':one': 1 },
      returns: 'UPDATED_NEW',
    });
    if (!counter) throw notFound(sessionId);
    // The result of DynamoDB's own arithmetic: always a number.
    const n = counter.inbox_seq as number;
    const item = { message_id: n, ...message };
    await this.putNew({ ...inboxMessageKey(sessionId, n), v: inboxMessageItem.version, ...item }, `inbox position ${n} was taken`);
    return item;
  }

  /** The oldest waiting messages. */
  async peekInbox(sessionId: string, limit = 1): Promise<InboxMessage[]> {
    const items = await this.items.query({ pk: keys.session(sessionId), between: inboxRange(), limit });
    return items.map((item) => inboxMessageItem.decode(item));
  }

  async removeFromInbox(sessionId: string, messageId: number): Promise<void> {
    await this.items.delete(inboxMessageKey(sessionId, messageId));
  }

  // --- artifacts --------------------------------------------------------------------------

  /** Records a file a tool wrote for this session; one item per artifact, beside the log. */
  async recordArtifact(sessionId: string, artifact: Omit<SessionArtifact, 'v'>): Promise<void> {
    await this.items.put({ ...sessionArtifactKey(sessionId, artifact.key), v: sessionArtifactItem.version, ...artifact });
  }

  /** Forgets a file a tool deleted. */
  async forgetArtifact(sessionId: string, key: string): Promise<void> {
    await this.items.delete(sessionArtifactKey(sessionId, key));
  }

  /** The files tools wrote for this session, oldest first. */
  async listArtifacts(sessionId: string): Promise<SessionArtifact[]> {
    const items = await this.items.query({ pk: keys.session(sessionId), prefix: sessionArtifactPrefix });
    return items.map((item) => sessionArtifactItem.decode(item)).sort((a, b) => a.at.localeCompare(b.at));
  }

  // --- rewinds ---------------------------------------------------------------------------

  /** Records a rewind of the written area (one item beside the log, deleted with the session). */
  async recordRewind(sessionId: string, rewind: Omit<SessionRewind, 'v'>): Promise<void> {
    await this.putNew({ ...sessionRewindKey(sessionId, rewind.event_seq), v: sessionRewindItem.version, ...rewind }, `rewind ${rewind.event_seq} of session ${sessionId} was already recorded`);
  }

  /** The session's own rewinds (a fork's parent's are not its own), oldest first. */
  async listRewinds(sessionId: string): Promise<SessionRewind[]> {
    const items = await this.items.query({ pk: keys.session(sessionId), prefix: sessionRewindPrefix });
    return items.map((item) => sessionRewindItem.decode(item));
  }

  // --- permission overrides -------------------------------------------------------------

  /** The session's permission overrides, if an owner set any. A run reads them once, at its first tool call, when the session's meta item says it has some. */
  async getPermissions(sessionId: string): Promise<SessionPermissions | undefined> {
    const item = await this.items.get(sessionPermissionsKey(sessionId));
    return item && sessionPermissionsItem.decode(item);
  }

  /** Replaces the session's overrides (one item beside the meta item; deleted with the session). */
  async putPermissions(sessionId: string, overrides: Omit<SessionPermissions, 'v' | 'session_id'>): Promise<SessionPermissions> {
    const item: SessionPermissions = { v: 1, session_id: sessionId, ...overrides };
    await this.items.put({ ...sessionPermissionsKey(sessionId), ...item });
    // Runs read the overrides only for sessions that have some: the flag rides on the meta item they already read.
    await this.updateSession(sessionId, { has_permission_overrides: Object.keys(overrides.permissions).length > 0 });
    return item;
  }

  // --- helpers ----------------------------------------------------------------------------

  /** Counts a write (approximate item size: its JSON). */
  count(item: Record<string, unknown>) {
    this.items.count(item);
  }

  /** The records log items hold, in order. */
  private async decodeItems(items: Item[]): Promise<LogRecord[]> {
    const decoded = await Promise.all(items.map(async (item) => logItem.decode(await this.loadBody(logItem.type, item), item as unknown as ItemKey)));
    return decoded.flat();
  }

  /** An item's body, from S3 when it was offloaded; an offloaded body that is gone is a StoredItemError. */
  private async loadBody(type: string, item: Item): Promise<Item> {
    const body = await loadOffloaded(this.artifacts, item);
    if (!body) throw new StoredItemError(type, `${String(item.pk)} ${String(item.sk)}`, `its offloaded body ${String(item.offload)} is missing`);
    return body;
  }

  /** Where a session was forked from (undefined: not a fork). A fork point never changes, so it is kept once read. */
  private async forkPointOf(id: string): Promise<ForkPoint | undefined> {
    const known = this.forkPoints.get(id);
    if (known !== undefined) return known ?? undefined;
    return (await this.getSession(id))?.forked_from;
  }

  private rememberForkPoint(id: string, meta: SessionMeta): void {
    if (this.forkPoints.size > 10_000) this.forkPoints.clear();
    this.forkPoints.set(id, meta.forked_from ?? null);
  }

  /** A log's items after `after` and up to `upto`, in order, a fork's parent's (up to its fork point) first. */
  private async chainItems(id: string, log: 'log' | 'event', after: number, upto?: number, limit?: number, projection?: string): Promise<Item[]> {
    const point = await this.forkPointOf(id);
    const cut = point && (log === 'log' ? point.log_seq : point.event_seq);
    const inherited = point && after < cut! ? await this.chainItems(point.session_id, log, after, Math.min(upto ?? Infinity, cut!), limit, projection) : [];
    if ((upto !== undefined && point && upto <= cut!) || (limit !== undefined && inherited.length >= limit)) return inherited;
    const range = log === 'log' ? logRange(after) : eventRange(after);
    const end = upto === undefined ? range[1] : log === 'log' ? keys.log(upto) : keys.event(upto);
    const own = await this.items.query({ pk: keys.session(id), between: [range[0], end], limit: limit && limit - inherited.length, projection });
    return [...inherited, ...own];
  }

  /**
   * A log's records after `after` and up to `upto`, in order, a fork's parent's (up to its fork point) first.
   * An item may hold several records (see `append`): each part keeps only the records of its own range.
   * `holds`: reads only the items it accepts (their bodies are the only ones loaded).
   */
  private async chainRecords(id: string, after: number, upto?: number, holds?: (item: Item) => boolean): Promise<LogRecord[]> {
    const point = await this.forkPointOf(id);
    const cut = point?.log_seq;
    const inherited = point && after < cut! ? await this.chainRecords(point.session_id, after, Math.min(upto ?? Infinity, cut!), holds) : [];
    if (upto !== undefined && point && upto <= cut!) return inherited;
    const [start, end] = logRange(after);
    const items = await this.items.query({ pk: keys.session(id), between: [start, upto === undefined ? end : keys.log(upto)] });
    const own = (await this.decodeItems(holds ? items.filter(holds) : items)).filter((record) => record.seq > after && (upto === undefined || record.seq <= upto));
    return [...inherited, ...own];
  }

  /** The last `count` records of the log up to `upto`, in order, reaching into a fork's parent when its own are fewer. */
  private async chainLogTail(id: string, count: number, upto?: number): Promise<LogRecord[]> {
    if (count <= 0) return [];
    const end = upto === undefined ? `${logPrefix}~` : keys.log(upto);
    // Each item holds at least one record: `count` items (one more, for an item cut at `upto`) hold the last `count`.
    const items = (await this.items.query({ pk: keys.session(id), between: [logPrefix, end], newestFirst: true, limit: count + 1 })).reverse();
    const own = (await this.decodeItems(items)).filter((record) => upto === undefined || record.seq <= upto).slice(-count);
    const point = own.length < count ? await this.forkPointOf(id) : undefined;
    if (!point) return own;
    return [...(await this.chainLogTail(point.session_id, count - own.length, Math.min(upto ?? Infinity, point.log_seq))), ...own];
  }

  /** The last item's position; `through`: the attribute naming the last position an item of several holds. */
  private async lastSeq(id: string, prefix: string, type: string, through?: string): Promise<number> {
    const projection = through ? `pk, sk, seq, ${through}` : 'pk, sk, seq';
    const [last] = await this.items.query({ pk: keys.session(id), prefix, newestFirst: true, limit: 1, projection });
    if (!last) return 0;
    const seq = through && last[through] !== undefined ? last[through] : last.seq;
    if (typeof seq !== 'number') throw new StoredItemError(type, `${String(last.pk)} ${String(last.sk)}`, `${through && last[through] !== undefined ? through : 'seq'} is not a number`);
    return seq;
  }

  private async putNew(item: Item & ItemKey, conflictMessage: string): Promise<void> {
    if (!(await this.items.putNew(item))) throw new ZeroError('conflict', conflictMessage);
  }
}
