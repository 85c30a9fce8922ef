import { requireAgent } from '../agent/catalog';
import type { AgentDefinition } from '../agent/definition';
import type { LocalRuns } from '../events/bus';
import { eventKey, missingEvents, recordKeys } from '../events/missing-events';
import { EventRecorder } from '../events/recorder';
import { addUsage, zeroUsage } from '../events/usage';
import type { StreamEvent, Usage, VoiceMode } from '../wire';
import { resolveModel } from '../model/anthropic';
import { ZeroError } from '../errors';
import { LeaseLostError, type LeaseStore, type RunLease, type StopRequest } from '../store/lease-store';
import type { InboxMessage, LogRecord, NewLogRecord, SessionMeta } from '../store/records';
import { RunDelegator } from './delegate';
import { pendingToolCalls, toMessages } from './history';
import { LEASE_LOST, describeFailure, endRun, type RunOutcome } from './end-run';
import { runLoop, type RunDeps } from './loop';
import type { RunQueue } from './queue';

export interface SessionRunnerDeps extends RunDeps {
  leases: LeaseStore;
  runs: LocalRuns;
  /** Where a run that hands over near its time limit is sent to be carried on. */
  queue: RunQueue;
  /** Names this process in lease items. */
  instanceId: string;
  defaultAgentId: string;
  defaultModel: string;
  /** How often text events are written to the event log at the latest. */
  eventFlushMs?: number;
  /** Time a step may need: a run does not start one with less than this left before its deadline. */
  handoverReserveMs?: number;
  /** A time budget per invocation when the platform gives none (the local server); Lambda's context gives the real one. */
  runBudgetMs?: number;
  /**
   * Called once a run has ended (not when it hands over), after its `run_end`
   * is durable and while the session's lease is still held. Must not throw.
   */
  onRunFinished?: (finished: FinishedRun) => Promise<void>;
}

/** A run that has ended: its session and the session's log, which ends with the run's `run_end`. */
export interface FinishedRun {
  session: SessionMeta;
  runId: string;
  history: readonly LogRecord[];
}

export interface DriveOptions {
  /** Epoch ms by which this process must be done (Lambda: now + remaining time). */
  deadline?: number;
  /** A lease this process already took for the session (a message that claimed an idle session); used first. */
  claimed?: { lease: RunLease; takeover: boolean };
}

const STOP_REASONS: Record<StopRequest['reason'], string> = {
  cancelled: 'cancelled by request',
  interrupted: 'interrupted by a new message',
};


/** The run the log shows as begun but not ended (its process died or it handed over), if any. */
export function unfinishedRun(history: readonly LogRecord[]): { runId: string; message: Extract<LogRecord, { kind: 'user_message' }> } | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!;
    // Child runs (delegated tasks) are carried on by their parent.
    if (record.kind === 'void' || record.parent_run_id) continue;
    if (record.kind === 'run_end') return undefined;
    if (record.kind === 'user_message') return { runId: record.run_id, message: record };
  }
  return undefined;
}

/**
 * Carries a session on for as long as this process holds its lease: first
 * the run the log shows unfinished (resumed from its last complete step),
 * then the waiting messages, one run at a time, in arrival order. Returns
 * when there is nothing left, another process holds the lease (it will do
 * what waits), or a run handed over near the deadline (the queue carries it
 * on). Never throws for a run's failure; those are recorded in the log.
 */
export async function driveSession(deps: SessionRunnerDeps, sessionId: string, options: DriveOptions = {}): Promise<void> {
  const deadline = options.deadline ?? (deps.runBudgetMs ? Date.now() + deps.runBudgetMs : undefined);
  let claimed = options.claimed;
  for (;;) {
    let acquired = claimed;
    claimed = undefined;
    if (!acquired) {
      const [next] = await deps.sessions.peekInbox(sessionId, 1);
      const open = next ? undefined : await lastRunIfOpen(deps, sessionId);
      if (!next && !open) return;
      acquired = await deps.leases.acquire(sessionId, deps.instanceId, next?.run_id ?? open!);
      if (!acquired) return;
    }
    let handedOver = false;
    try {
      handedOver = await drain(deps, sessionId, acquired.lease, acquired.takeover, deadline);
    } finally {
      await deps.leases.release(acquired.lease).catch(() => undefined);
    }
    if (handedOver) {
      await deps.queue.send({ session_id: sessionId, reason: 'handover near the time limit' });
      return;
    }
    // A message may have arrived between the last look at the inbox and the release: look again.
  }
}

/** The id of the session's last run when the log shows it unfinished (a cheap look at the log's tail). */
async function lastRunIfOpen(deps: SessionRunnerDeps, sessionId: string): Promise<string | undefined> {
  const tail = await deps.sessions.readLogTail(sessionId, 50);
  const open = unfinishedRun(tail);
  if (open) return open.runId;
  // A long step may push its user message out of the tail: look further only when the tail shows no ending.
  if (tail.length === 50 && !tail.some((r) => r.kind === 'run_end')) return unfinishedRun(await deps.sessions.readLog(sessionId))?.runId;
  return undefined;
}

/** Returns true when a run handed over (the caller sends the session to the queue). */
async function drain(deps: SessionRunnerDeps, sessionId: string, lease: RunLease, takeover: boolean, deadline?: number): Promise<boolean> {
  let session = await deps.sessions.requireSession(sessionId);
  const cached = deps.runs.cachedHistory(sessionId);
  const seen = cached ? lastSeq(cached) : 0;
  const history = cached ? [...cached, ...(await deps.sessions.readLog(sessionId, seen))] : await deps.sessions.readLog(sessionId);
  const lastLog = lastSeq(history);
  // Every event position is handed out by the lease, so its counter is never behind the event log;
  // the log's tail is read only to seal what a dead holder reserved.
  if (takeover) {
    const lastEvent = await deps.sessions.lastEventSeq(sessionId);
    await seal(deps, sessionId, lease, lastLog, lastEvent);
    await restoreEvents(deps, sessionId, lease, history, lastEvent);
  }
  await deps.leases.raise(lease, 'log', lastLog);

  let current: { runId: string; controller: AbortController } | undefined;
  const applyStop = (stop: StopRequest | undefined) => {
    if (stop && current && stop.run_id === current.runId) current.controller.abort(STOP_REASONS[stop.reason]);
  };
  let lost = false;
  const heartbeat = setInterval(() => {
    deps.leases
      .heartbeat(lease, current?.runId)
      .then(applyStop)
      .catch((error) => {
        if (error instanceof LeaseLostError) {
          lost = true;
          current?.controller.abort('the run lost its lease to another instance');
        }
      });
  }, Math.max(1000, deps.leases.ttlMs / 3));

  const run = async (spec: RunSpec) => {
    const controller = new AbortController();
    current = { runId: spec.runId, controller };
    const result = await runOne(deps, session, lease, spec, history, controller, applyStop, deadline);
    current = undefined;
    session = result.session;
    if (result.outcome.error?.code === LEASE_LOST) {
      // Another instance holds the session now and carries this run on.
      lost = true;
      return undefined;
    }
    // An ending the store refused leaves the run unfinished in the log: stop here rather than resume it at once.
    const last = history.findLast((r) => r.run_id === spec.runId);
    if (last?.kind !== 'run_end' && last?.kind !== 'run_handover') throw new Error(`the end of run ${spec.runId} could not be recorded`);
    if (result.outcome.status !== 'handover') await deps.onRunFinished?.({ session, runId: spec.runId, history });
    return result.outcome;
  };

  try {
    const open = unfinishedRun(history);
    if (open && !lost) {
      const outcome = await run({ runId: open.runId, record: open.message });
      if (outcome?.status === 'handover') return true;
    }
    while (!lost) {
      const [message] = await deps.sessions.peekInbox(sessionId, 1);
      if (!message) break;
      // Moved into the log before a crash, but not yet removed from the inbox.
      if (history.some((r) => r.kind === 'user_message' && r.message_id === message.message_id)) {
        await deps.sessions.removeFromInbox(sessionId, message.message_id);
        continue;
      }
      const outcome = await run({ runId: message.run_id, message });
      if (outcome?.status === 'handover') return true;
    }
    return false;
  } finally {
    clearInterval(heartbeat);
    if (lost) deps.runs.forgetHistory(sessionId);
    else deps.runs.cacheHistory(sessionId, history);
  }
}

/** The highest position in a log (records may be out of order: concurrent tool results). */
function lastSeq(records: readonly LogRecord[]): number {
  let last = 0;
  for (const record of records) if (record.seq > last) last = record.seq;
  return last;
}

/** Writes `void` into positions a dead holder reserved but never wrote, so it can never write them later. */
async function seal(deps: SessionRunnerDeps, sessionId: string, lease: RunLease, lastLog: number, lastEvent: number) {
  for (let seq = lastLog + 1; seq <= lease.nextLog; seq++) {
    await deps.sessions.append(sessionId, seq, { kind: 'void', run_id: 'sealed' }).catch(() => undefined);
  }
  for (let seq = lastEvent + 1; seq <= lease.nextEvent; seq++) {
    await deps.sessions.putEvents(sessionId, { seq, run_id: 'sealed', events: [] }).catch(() => undefined);
  }
}

/** A new message to answer, or an unfinished run (its user message already in the log) to carry on. */
type RunSpec = { runId: string; message: InboxMessage; record?: undefined } | { runId: string; record: Extract<LogRecord, { kind: 'user_message' }>; message?: undefined };

async function resolveAgent(deps: SessionRunnerDeps, wanted: string, fallback: string): Promise<AgentDefinition | undefined> {
  const found = await requireAgent(deps.catalog, wanted).catch(() => undefined);
  return found ?? (await requireAgent(deps.catalog, fallback).catch(() => undefined));
}

/**
 * Hands out log positions from blocks reserved on the lease (one conditional
 * write per block instead of per record). A block's unused positions stay
 * empty; a holder that takes an expired lease over seals them, so a stalled
 * writer can never fill them later.
 */
class PositionPool {
  private free: number[] = [];
  private refill?: Promise<void>;

  constructor(
    private readonly deps: SessionRunnerDeps,
    private readonly lease: RunLease,
    private readonly log: 'log' | 'event',
    private readonly block: number,
    /** The run the positions are for: each block names it on the lease, so cancel finds it. */
    private readonly runId: string,
    private readonly onStop: (stop: StopRequest | undefined) => void,
  ) {}

  async next(): Promise<number> {
    while (this.free.length === 0) {
      this.refill ??= this.deps.leases
        .allocate(this.lease, this.log, this.block, this.runId)
        .then(({ first, stop }) => {
          for (let i = 0; i < this.block; i++) this.free.push(first + i);
          this.onStop(stop);
        })
        .finally(() => {
          this.refill = undefined;
        });
      await this.refill;
    }
    return this.free.shift()!;
  }
}

/**
 * Runs one message (or carries an unfinished run on) and ends it: whatever
 * fails, its readers get one last event, `done` (or `handover`), and the log
 * its `run_end` when the store takes it. Rethrows a storage failure after
 * that, so the drive stops; a lost lease is an outcome, not a failure.
 */
async function runOne(
  deps: SessionRunnerDeps,
  session: SessionMeta,
  lease: RunLease,
  spec: RunSpec,
  history: LogRecord[],
  controller: AbortController,
  applyStop: (stop: StopRequest | undefined) => void,
  deadline?: number,
): Promise<{ session: SessionMeta; outcome: RunOutcome }> {
  const sessionId = session.session_id;
  const runId = spec.runId;
  const logPositions = new PositionPool(deps, lease, 'log', 4, runId, applyStop);
  const eventPositions = new PositionPool(deps, lease, 'event', 4, runId, applyStop);
  const recorder = new EventRecorder(
    {
      allocate: () => eventPositions.next(),
      write: (seq, events) => deps.sessions.putEvents(sessionId, { seq, run_id: runId, events }).catch(fencedOut),
    },
    deps.eventFlushMs,
  );
  await recorder.open();
  deps.runs.attach(sessionId, runId, recorder, controller);
  const emit = (event: StreamEvent) => recorder.emit(event);

  const append = async (record: NewLogRecord) => {
    if (recorder.failure) throw recorder.failure;
    const stored = await deps.sessions.append(sessionId, await logPositions.next(), record).catch(fencedOut);
    history.push(stored);
  };
  // The run's user message is in the log (it is resumed, or was just moved there): only then is its end recorded.
  let recorded = !!spec.record;
  const ending = () => ({ sessionId, runId, append, emit, secrets: deps.secrets, recorded });

  const background: Promise<unknown>[] = [];
  let next = session;
  try {
    let agent: AgentDefinition | undefined;
    let agentId: string;
    let voice: VoiceMode;
    let requestedVoice: VoiceMode | undefined;
    let previousAgent: string | undefined;
    let model: string;
    if (spec.message) {
      const message = spec.message;
      agentId = message.agent_id ?? session.agent_id ?? deps.defaultAgentId;
      agent = await resolveAgent(deps, agentId, session.agent_id);
      requestedVoice = message.voice_mode ?? session.voice_mode;
      voice = requestedVoice ?? agent?.default_voice ?? 'full';
      // The agent that answered the session's last message, before this one is recorded.
      const lastMessage = history.findLast((r): r is Extract<LogRecord, { kind: 'user_message' }> => r.kind === 'user_message' && !r.parent_run_id);
      previousAgent = lastMessage?.agent_id ?? session.agent_id;
      model = resolveModel(message.model ?? agent?.model, deps.defaultModel);
      emit({ type: 'start', session_id: sessionId, run_id: runId, agent_id: agent?.id ?? agentId });
      await append({
        kind: 'user_message',
        run_id: runId,
        message_id: message.message_id,
        text: message.text,
        ...(message.author ? { author: message.author } : {}),
        agent_id: agent?.id ?? agentId,
        model,
        voice_mode: voice,
      });
      recorded = true;
      if (agent && agent.id !== previousAgent) emit({ type: 'agent_switch', from: previousAgent ?? null, to: agent.id, reason: 'switch', agent_id: agent.id, run_id: runId });
      emit({ type: 'message', message_id: message.message_id, text: message.text, ...(message.author ? { author: message.author } : {}), run_id: runId });
      const now = new Date().toISOString();
      next = { ...session, agent_id: agent?.id ?? session.agent_id, project_id: message.project_id ?? session.project_id, updated_at: now };
      // Off the path to the first model call: neither has to be durable before the run starts (a message left in
      // the inbox is dropped by the next drain, as it is in the log).
      background.push(
        deps.sessions.removeFromInbox(sessionId, message.message_id).catch(() => undefined),
        deps.sessions.updateSession(sessionId, { agent_id: next.agent_id, project_id: next.project_id, updated_at: now }).catch(() => undefined),
      );
    } else {
      agentId = spec.record.agent_id;
      agent = await resolveAgent(deps, agentId, session.agent_id);
      voice = spec.record.voice_mode;
      model = spec.record.model;
      emit({ type: 'start', session_id: sessionId, run_id: runId, agent_id: agent?.id ?? agentId, resumed: true });
    }

    if (!agent) {
      const error = { code: 'agent_not_found', message: `agent "${agentId}" is no longer available` };
      return { session: next, outcome: await endRun(ending(), { status: 'error', steps: 0, usage: zeroUsage(), reason: error.message, error }) };
    }

    const outcome = await runLoop(
      deps,
      {
        sessionId,
        runId,
        agent,
        model,
        voice,
        projectId: next.project_id,
        messages: toMessages(history, { openRunId: runId }),
        append,
        signal: controller.signal,
        resume: spec.record ? resumeState(history, runId) : undefined,
        deadline,
        handoverReserveMs: deps.handoverReserveMs,
        delegator: RunDelegator.forRun(
          { deps, defaultModel: deps.defaultModel, sessionId, projectId: next.project_id, voice: requestedVoice, history, append, emit, signal: controller.signal, deadline: Date.now() + deps.limits.wallTimeMs },
          agent,
          runId,
        ),
        confirmLease: () => deps.leases.heartbeat(lease, runId).then(applyStop),
      },
      emit,
    );
    return { session: next, outcome };
  } catch (error) {
    // Only storage failures reach here (the loop itself never throws): end the run for its readers, then stop the drive.
    const described = describeFailure(error, deps.secrets ?? []);
    const outcome = await endRun(ending(), { status: 'error', steps: 0, usage: zeroUsage(), reason: described.message, error: described });
    if (outcome.error?.code === LEASE_LOST) return { session: next, outcome };
    throw error;
  } finally {
    await Promise.allSettled(background);
    await recorder.close();
    deps.runs.detach(sessionId, runId, recorder);
  }
}

/**
 * A write refused at a position the lease handed out means another instance
 * sealed it: that instance took the lease over.
 */
function fencedOut(error: unknown): never {
  if (ZeroError.isInstance(error) && error.code === 'conflict') throw new LeaseLostError(error.message);
  throw error;
}

/** How many of the log's last records a takeover checks for events that never reached the event log. */
const RESTORE_RECORDS = 50;
/** Event batches read at a time, going back from the end, until they reach the oldest of those records' events. */
const RESTORE_BATCHES = 50;

/**
 * After a takeover: writes the events of stored records that the previous
 * holder never got into the event log (it died between storing a record and
 * writing its event batch), derived from the records, so a reader of the
 * event log sees every stored record.
 */
async function restoreEvents(deps: SessionRunnerDeps, sessionId: string, lease: RunLease, history: readonly LogRecord[], lastEvent: number) {
  const candidates = [...history]
    .filter((r) => r.kind !== 'void')
    .sort((a, b) => a.seq - b.seq)
    .slice(-RESTORE_RECORDS);
  if (candidates.length === 0) return;
  const earliestSeq = candidates[0]!.seq;
  const seqOf = new Map(history.flatMap((r) => recordKeys(r).map((key) => [key, r.seq] as const)));
  const logged: StreamEvent[] = [];
  // Read back until the batches reach the event of a record at or before the oldest candidate (or the log's
  // start), and one window more: concurrent tool results may log their events out of record order.
  let extra = 1;
  for (let to = lastEvent; to > 0 && extra >= 0; to -= RESTORE_BATCHES) {
    const from = Math.max(1, to - RESTORE_BATCHES + 1);
    const events = (await deps.sessions.readEvents(sessionId, from - 1, to - from + 1)).flatMap((b) => b.events);
    logged.unshift(...events);
    const reached = events.some((e) => {
      const key = eventKey(e);
      return key !== undefined && (seqOf.get(key) ?? Infinity) <= earliestSeq;
    });
    if (reached || extra < 1) extra--;
  }
  const events = missingEvents(sessionId, candidates, logged);
  if (events.length === 0) return;
  const { first } = await deps.leases.allocate(lease, 'event', 1);
  await deps.sessions.putEvents(sessionId, { seq: first, run_id: candidates.at(-1)!.run_id, events });
}

/** Where an unfinished run stands: its completed steps, their usage, and the calls of its last step still without results. */
function resumeState(history: readonly LogRecord[], runId: string) {
  const usage = zeroUsage();
  let steps = 0;
  for (const record of history) {
    if (record.run_id !== runId || record.kind !== 'assistant') continue;
    steps = Math.max(steps, record.step);
    addUsage(usage, record.usage);
  }
  return { steps, usage, pending: pendingToolCalls(history, runId) };
}
