import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, type ZeroError } from '@zero/agent/errors';
import { runLeaseItem, runLeaseKey, type StopRequest } from './items/run-lease';
import { keys } from './keys';
import { LeaseLostError } from '@zero/agent/loop/lease-lost';
import type { SessionStore } from './session-store';
import { isConditionFailure } from './table';

export type { StopRequest } from './items/run-lease';

/** The right to run a session, held until `until` (epoch ms) and fenced by `token`. */
export interface RunLease {
  sessionId: string;
  holder: string;
  token: number;
  until: number;
  /** Counters of the positions handed out in the record log and the event log (as this holder last set them). */
  nextLog: number;
  nextEvent: number;
  /** The counters as the previous holder left them: a takeover seals what it reserved but never wrote, up to these. */
  inherited: { log: number; event: number };
  /** Positions reserved for this holder and not yet handed out, ascending (see `PositionPool`). */
  reserved: { log: number[]; event: number[] };
  /** The run the lease item names (cancel and interrupt find it there), as this holder last wrote it. */
  runId?: string;
}

/** How many positions of each log an acquire reserves when asked to. */
export interface PositionReservation {
  log: number;
  event: number;
}

/** The lease was taken over by another instance: this one must stop writing for the session (declared where the loop reads it). */
export { LeaseLostError };

/**
 * One active run per session, held by a lease item (`LEASE`) in DynamoDB:
 * acquired with a conditional write when free or expired, extended by
 * heartbeats, and fenced: each takeover increments `token`, and every
 * position a run writes to in the logs is handed out by a conditional update
 * on `token`, so an instance whose lease was taken over cannot write again.
 */
export class LeaseStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly sessions: SessionStore,
    readonly ttlMs = 30_000,
  ) {}

  /**
   * Takes the session's lease if it is free or expired; undefined when
   * another holder has it. With `reserve`, the same write reserves the first
   * positions of both logs for the holder (`lease.reserved`), so a run starts
   * without another round trip; they are fenced like any block: a takeover
   * seals those left unwritten.
   */
  async acquire(sessionId: string, holder: string, runId: string, reserve: PositionReservation = { log: 0, event: 0 }): Promise<{ lease: RunLease; takeover: boolean } | undefined> {
    const now = Date.now();
    this.sessions.count({ sessionId, holder });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(sessionId), sk: keys.lease },
          UpdateExpression:
            'SET v = :v, holder = :h, run_id = :r, lease_until = :until, #token = if_not_exists(#token, :zero) + :one, next_log = if_not_exists(next_log, :zero) + :log, next_event = if_not_exists(next_event, :zero) + :event REMOVE stop_request',
          ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':v': runLeaseItem.version, ':h': holder, ':r': runId, ':until': now + this.ttlMs, ':zero': 0, ':one': 1, ':now': now, ':log': reserve.log, ':event': reserve.event },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const old = Attributes ? runLeaseItem.decode(Attributes, runLeaseKey(sessionId)) : {};
      const inherited = { log: old.next_log ?? 0, event: old.next_event ?? 0 };
      const lease: RunLease = {
        sessionId,
        holder,
        token: (old.token ?? 0) + 1,
        until: now + this.ttlMs,
        nextLog: inherited.log + reserve.log,
        nextEvent: inherited.event + reserve.event,
        inherited,
        reserved: { log: range(inherited.log + 1, reserve.log), event: range(inherited.event + 1, reserve.event) },
        runId,
      };
      // A lease that was not released ended with its holder: it may have reserved positions it never wrote.
      return { lease, takeover: (old.lease_until ?? 0) > 0 };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * The lease item as it is now (for 409s naming the active run). `abandoned`: it ran out without being
   * released, so its holder died, maybe between storing a record and reporting it (a takeover restores that).
   */
  async inspect(sessionId: string): Promise<{ run_id?: string; until: number; active: boolean; abandoned: boolean } | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: runLeaseKey(sessionId) }));
    if (!Item) return undefined;
    const item = runLeaseItem.decode(Item);
    const until = item.lease_until ?? 0;
    // A released lease has no time left (0); one that ran out unreleased ended with its holder.
    return { run_id: item.run_id, until, active: until > Date.now(), abandoned: until > 0 && until <= Date.now() };
  }

  /**
   * Makes sure this holder still has the lease right before a side effect (a tool call). While more
   * than half its term is left by this process's clock, no other instance can have taken it (a
   * takeover needs it expired), so no write is needed; otherwise it is extended with a fenced write,
   * which throws LeaseLostError when it was taken over (an instance frozen past its lease runs nothing).
   */
  async confirm(lease: RunLease, runId?: string): Promise<StopRequest | undefined> {
    if (lease.until - Date.now() > this.ttlMs / 2) return undefined;
    return this.heartbeat(lease, runId);
  }

  /** Extends the lease and records which run it serves. Throws LeaseLostError when it was taken over. */
  async heartbeat(lease: RunLease, runId?: string): Promise<StopRequest | undefined> {
    const result = await this.fenced(lease, `SET lease_until = :until${runId ? ', run_id = :r' : ''}`, runId ? { ':r': runId } : {});
    return result.stop;
  }

  /**
   * Hands out the next `count` positions of a log for run `runId`, extending
   * the lease and naming that run as the active one in the same write (a
   * drain moves from run to run; cancel and interrupt must name the current
   * one). Throws LeaseLostError when the lease was taken over.
   */
  async allocate(lease: RunLease, log: 'log' | 'event', count = 1, runId?: string): Promise<{ first: number; stop?: StopRequest }> {
    const field = log === 'log' ? 'next_log' : 'next_event';
    const result = await this.fenced(lease, `SET lease_until = :until, ${field} = ${field} + :n${runId ? ', run_id = :r' : ''}`, {
      ':n': count,
      ...(runId ? { ':r': runId } : {}),
    });
    const last = Number(result.attributes[field]);
    if (log === 'log') lease.nextLog = last;
    else lease.nextEvent = last;
    if (runId) lease.runId = runId;
    return { first: last - count + 1, stop: result.stop };
  }

  /**
   * Raises a counter to at least `value` (positions written before leases
   * existed, or by a crashed run), dropping the reserved positions up to it.
   */
  async raise(lease: RunLease, log: 'log' | 'event', value: number): Promise<void> {
    const field = log === 'log' ? 'next_log' : 'next_event';
    const reserved = lease.reserved[log];
    reserved.splice(0, reserved.filter((seq) => seq <= value).length);
    if ((log === 'log' ? lease.nextLog : lease.nextEvent) >= value) return;
    await this.fenced(lease, `SET lease_until = :until, ${field} = :v`, { ':v': value });
    if (log === 'log') lease.nextLog = value;
    else lease.nextEvent = value;
  }

  /**
   * Gives the lease up so the next message can run at once. Waits for this
   * holder's updates in flight first (a block reserved ahead of need): one
   * landing after the release would hold the session for another lease term.
   */
  async release(lease: RunLease): Promise<void> {
    await Promise.allSettled(this.inFlight.get(lease) ?? []);
    try {
      await this.fenced(lease, 'SET lease_until = :zero REMOVE run_id, stop_request', { ':zero': 0 }, false);
    } catch (error) {
      if (!LeaseLostError.isInstance(error)) throw error;
    }
  }

  /** Asks the run `runId` to stop at its next safe point. False when that run is not active. */
  async requestStop(sessionId: string, request: StopRequest): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(sessionId), sk: keys.lease },
          UpdateExpression: 'SET stop_request = :s',
          ConditionExpression: 'run_id = :r AND lease_until > :now',
          ExpressionAttributeValues: { ':s': request, ':r': request.run_id, ':now': Date.now() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Each lease's fenced updates that have not answered yet. */
  private readonly inFlight = new WeakMap<RunLease, Set<Promise<unknown>>>();

  private fenced(lease: RunLease, update: string, values: Record<string, unknown>, extend = true) {
    let pending = this.inFlight.get(lease);
    if (!pending) this.inFlight.set(lease, (pending = new Set()));
    const request = this.sendFenced(lease, update, values, extend);
    pending.add(request);
    void request.catch(() => undefined).finally(() => pending.delete(request));
    return request;
  }

  private async sendFenced(lease: RunLease, update: string, values: Record<string, unknown>, extend: boolean) {
    const until = Date.now() + this.ttlMs;
    this.sessions.count({ sessionId: lease.sessionId, update });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.session(lease.sessionId), sk: keys.lease },
          UpdateExpression: update,
          ConditionExpression: '#token = :token AND holder = :holder',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': lease.token, ':holder': lease.holder, ...(extend ? { ':until': until } : {}), ...values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      if (extend) lease.until = until;
      return { attributes: Attributes ?? {}, stop: Attributes?.stop_request as StopRequest | undefined };
    } catch (error) {
      if (isConditionFailure(error)) throw new LeaseLostError(`the lease on session ${lease.sessionId} was taken over`);
      throw error;
    }
  }
}

/** `count` consecutive positions from `first`. */
function range(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i);
}

/** The 409 for a `reject` strategy, naming the active run. */
export function sessionBusy(runId: string | undefined): ZeroError {
  return conflict(`the session is busy with run ${runId ?? '(unknown)'}; retry when it is done or use strategy "enqueue"`, { active_run_id: runId });
}
