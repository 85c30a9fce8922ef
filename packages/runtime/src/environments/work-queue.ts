import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ZeroError, conflict, notFound } from '@zero/agent/errors';
import { keys } from '../store/keys';
import { workItem, workItemSchema, type WorkItem, type WorkOutcome } from '../store/items/work-item';
import { Table } from '../store/table';

/** The lease a worker holds on acknowledged work unless its heartbeats ask for another (`desired_ttl_seconds`). */
export const DEFAULT_LEASE_SECONDS = 60;
export const MIN_LEASE_SECONDS = 2;
export const MAX_LEASE_SECONDS = 600;
/** A polled, unacknowledged item is handed to the next poll after this long (the API's default `reclaim_older_than_ms`). */
export const DEFAULT_RECLAIM_MS = 5_000;
/** How long a stopped item stays readable (list, retrieve) before DynamoDB's TTL removes it. */
const STOPPED_KEPT_S = 7 * 24 * 3600;
/** The sentinel a first heartbeat sends as `expected_last_heartbeat`. */
export const NO_HEARTBEAT = 'NO_HEARTBEAT';

/** The work id of a session's tool call: the same call is queued once, whoever queues it. */
export const workIdOf = (sessionId: string, toolUseId: string) => `work_${createHash('sha256').update(`${sessionId}\n${toolUseId}`).digest('hex').slice(0, 32)}`;

/** The moment an acknowledged item's lease runs out. */
export const leaseEnd = (work: WorkItem) => Date.parse(work.latest_heartbeat_at ?? work.acknowledged_at ?? work.created_at) + work.ttl_seconds * 1000;
const leased = (work: WorkItem) => work.state === 'starting' || work.state === 'active' || work.state === 'stopping';

/**
 * A heartbeat that does not hold the lease, with the lease as the server holds it: the `/v1` route
 * answers it as a 412 (`BetaHeartbeatPreconditionFailedError`); anywhere else it is a 409.
 */
export class LeasePreconditionError extends ZeroError {
  constructor(
    message: string,
    readonly current: { last_heartbeat: string | null; lease_extended: false; state: WorkItem['state']; ttl_seconds: number },
  ) {
    super('conflict', message);
  }
}

/**
 * A self-hosted environment's queue of tool calls, in the table beside the environment
 * (`ENV#<id>` / `WORK#<work id>`). Every transition is one conditional write, so of two workers
 * racing for an item exactly one acknowledges it, and a worker whose lease ran out can neither
 * heartbeat nor post a result any more: its call has been failed, never run again.
 */
export class WorkQueue {
  readonly table: Table;

  constructor(db: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(db, tableName);
  }

  /** Queues a call (once: a second enqueue of the same call changes nothing). */
  async enqueue(call: { environmentId: string; sessionId: string; runId: string; toolUseId: string; tool: string; input: unknown }): Promise<WorkItem> {
    const work: WorkItem = {
      id: workIdOf(call.sessionId, call.toolUseId),
      environment_id: call.environmentId,
      session_id: call.sessionId,
      run_id: call.runId,
      tool_use_id: call.toolUseId,
      tool: call.tool,
      input: JSON.stringify(call.input ?? {}),
      state: 'queued',
      created_at: new Date().toISOString(),
      polled_at: null,
      polled_by: null,
      polls: 0,
      beats: 0,
      acknowledged_at: null,
      latest_heartbeat_at: null,
      ttl_seconds: DEFAULT_LEASE_SECONDS,
      stop_requested_at: null,
      stopped_at: null,
      outcome: null,
      metadata: {},
    };
    await this.table.putNew({ ...keys.work(call.environmentId, work.id), v: workItem.version, ...workItemSchema.parse(work) });
    return work;
  }

  async get(environmentId: string, workId: string): Promise<WorkItem | undefined> {
    if (!/^work_[a-f0-9]{32}$/.test(workId)) return undefined;
    const item = await this.table.get(keys.work(environmentId, workId), { consistent: true });
    return item ? workItem.decode(item) : undefined;
  }

  async require(environmentId: string, workId: string): Promise<WorkItem> {
    const work = await this.get(environmentId, workId);
    if (!work) throw notFound(`no work "${workId}" in environment "${environmentId}"`, 'work_id');
    return work;
  }

  /** Every item of the environment, oldest first (stopped ones until their TTL removes them). */
  async list(environmentId: string): Promise<WorkItem[]> {
    const items = await this.table.query({ pk: keys.environmentPartition(environmentId), prefix: keys.workPrefix, consistent: true });
    return items.map((item) => workItem.decode(item)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** The item of a session's call, if it was queued. */
  findCall(environmentId: string, sessionId: string, toolUseId: string): Promise<WorkItem | undefined> {
    return this.get(environmentId, workIdOf(sessionId, toolUseId));
  }

  /**
   * Hands out the oldest queued item nobody polled (or whose poll was not acknowledged within
   * `reclaimMs`): one conditional write on its poll time, so two polls never get the same item.
   */
  async poll(environmentId: string, workerId: string | null, reclaimMs = DEFAULT_RECLAIM_MS): Promise<WorkItem | undefined> {
    const now = Date.now();
    for (const work of await this.list(environmentId)) {
      if (work.state !== 'queued') continue;
      if (work.polled_at && now - Date.parse(work.polled_at) < reclaimMs) continue;
      const polledAt = new Date(now).toISOString();
      const claimed = await this.table.update(keys.work(environmentId, work.id), {
        set: 'SET polled_at = :at, polled_by = :by, polls = :next',
        condition: '#state = :queued AND polls = :seen',
        names: { '#state': 'state' },
        values: { ':at': polledAt, ':by': workerId, ':queued': 'queued', ':seen': work.polls, ':next': work.polls + 1 },
      });
      if (claimed) return { ...work, polled_at: polledAt, polled_by: workerId, polls: work.polls + 1 };
    }
    return undefined;
  }

  /** Acknowledges a queued item (`queued` → `starting`): its lease starts. A 409 when it is not queued (someone else acknowledged it). */
  async acknowledge(environmentId: string, workId: string): Promise<WorkItem> {
    const at = new Date().toISOString();
    const updated = await this.table.update(keys.work(environmentId, workId), {
      set: 'SET #state = :starting, acknowledged_at = :at',
      condition: '#state = :queued',
      names: { '#state': 'state' },
      values: { ':starting': 'starting', ':queued': 'queued', ':at': at },
      returns: 'ALL_NEW',
    });
    if (!updated) {
      const work = await this.require(environmentId, workId);
      throw conflict(`work "${workId}" is ${work.state}, not queued: another worker acknowledged it, or it was stopped`);
    }
    return workItem.decode(updated);
  }

  /**
   * Extends the lease of an acknowledged item whose last heartbeat is `expected` (`NO_HEARTBEAT`
   * for the first). A 412 with the server's lease when it does not match or the lease ran out;
   * a stopping or stopped item answers its state without extending (the worker then stops).
   */
  async heartbeat(environmentId: string, workId: string, expected: string | undefined, desiredTtl: number | undefined): Promise<{ work: WorkItem; extended: boolean }> {
    const work = await this.require(environmentId, workId);
    const lease = { last_heartbeat: work.latest_heartbeat_at, lease_extended: false as const, state: work.state, ttl_seconds: work.ttl_seconds };
    if (work.state === 'stopping' || work.state === 'stopped') return { work, extended: false };
    if (work.state === 'queued') throw new LeasePreconditionError(`work "${workId}" is not acknowledged`, lease);
    if (expected !== undefined && expected !== (work.latest_heartbeat_at ?? NO_HEARTBEAT)) {
      throw new LeasePreconditionError(`expected_last_heartbeat "${expected}" is not the lease's last heartbeat: another worker may hold it`, lease);
    }
    if (Date.now() >= leaseEnd(work)) throw new LeasePreconditionError(`the lease on work "${workId}" ran out`, lease);
    const ttl = Math.min(MAX_LEASE_SECONDS, Math.max(MIN_LEASE_SECONDS, desiredTtl ?? work.ttl_seconds));
    // Strictly later than the last one, so an echo of an older heartbeat never matches again.
    const at = new Date(Math.max(Date.now(), Date.parse(work.latest_heartbeat_at ?? '1970-01-01T00:00:00.000Z') + 1)).toISOString();
    const updated = await this.table.update(keys.work(environmentId, workId), {
      set: 'SET #state = :active, latest_heartbeat_at = :at, ttl_seconds = :ttl, beats = :next',
      condition: 'beats = :seen AND #state IN (:starting, :active)',
      names: { '#state': 'state' },
      values: { ':active': 'active', ':at': at, ':ttl': ttl, ':starting': 'starting', ':seen': work.beats, ':next': work.beats + 1 },
      returns: 'ALL_NEW',
    });
    if (!updated) return this.heartbeat(environmentId, workId, expected, desiredTtl);
    return { work: workItem.decode(updated), extended: true };
  }

  /**
   * Stops an item that is not stopped yet, with why; for a leased item only while its lease holds
   * (`requireLease`: a worker's result). Undefined when it was stopped already or the lease ran out.
   */
  async finish(work: WorkItem, outcome: WorkOutcome, options: { requireLease?: boolean } = {}): Promise<WorkItem | undefined> {
    if (work.state === 'stopped') return undefined;
    if (options.requireLease && (!leased(work) || Date.now() >= leaseEnd(work))) return undefined;
    const at = new Date().toISOString();
    const updated = await this.table.update(keys.work(work.environment_id, work.id), {
      set: 'SET #state = :stopped, stopped_at = :at, outcome = :outcome, expires_at = :expires',
      condition: '#state = :seenState AND beats = :seenBeats',
      names: { '#state': 'state' },
      values: { ':stopped': 'stopped', ':at': at, ':outcome': outcome, ':expires': Math.ceil(Date.now() / 1000) + STOPPED_KEPT_S, ':seenState': work.state, ':seenBeats': work.beats },
      returns: 'ALL_NEW',
    });
    return updated ? workItem.decode(updated) : undefined;
  }

  /** Marks a stop request: the worker sees `stopping` at its next heartbeat. */
  async requestStop(work: WorkItem): Promise<WorkItem | undefined> {
    const updated = await this.table.update(keys.work(work.environment_id, work.id), {
      set: 'SET #state = :stopping, stop_requested_at = :at',
      condition: '#state IN (:starting, :active)',
      names: { '#state': 'state' },
      values: { ':stopping': 'stopping', ':at': new Date().toISOString(), ':starting': 'starting', ':active': 'active' },
      returns: 'ALL_NEW',
    });
    return updated ? workItem.decode(updated) : undefined;
  }

  /** Merges a metadata patch (a null value removes its key). */
  async updateMetadata(work: WorkItem, metadata: Record<string, string>): Promise<WorkItem> {
    const updated = await this.table.update(keys.work(work.environment_id, work.id), { set: 'SET metadata = :m', values: { ':m': metadata }, returns: 'ALL_NEW' });
    return updated ? workItem.decode(updated) : { ...work, metadata };
  }

  /** The acknowledged items whose lease ran out without a result. */
  async expired(environmentId: string): Promise<WorkItem[]> {
    const now = Date.now();
    return (await this.list(environmentId)).filter((work) => leased(work) && now >= leaseEnd(work));
  }
}
