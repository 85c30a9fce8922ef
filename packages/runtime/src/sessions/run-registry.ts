import type { EventPosition } from '@zero/agent/events/ids';
import type { LogRecord } from '../store/records';
import type { EventRecorder } from '@zero/agent/events/recorder';

/** Sessions whose log is kept in memory between runs of this process. */
const HISTORY_CACHE_SESSIONS = 200;
/** Run endings remembered for this process's chat readers (see `endedHere`). */
const ENDED_RUNS = 500;

/**
 * Runs active in this process, by session, so that readers here see their
 * events the moment they happen instead of waiting for the event log.
 */
export class LocalRuns {
  private readonly recorders = new Map<string, { runId: string; recorder: EventRecorder }>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly histories = new Map<string, CachedHistory>();
  /** Runs that ended here, by run id: where their events began, and the recorder of a run whose events could not all be written. */
  private readonly ended = new Map<string, { first?: EventPosition; unwritten?: EventRecorder }>();

  /**
   * The session's log as this process last held it, and the token of the
   * lease it held then. The log is append-only and positions are handed out
   * in increasing order under the lease, so whoever takes the lease next
   * only needs to read what came after it, and nothing at all when its token
   * is the next one (nobody held the lease in between).
   */
  cachedHistory(sessionId: string): CachedHistory | undefined {
    const cached = this.histories.get(sessionId);
    if (!cached) return undefined;
    this.histories.delete(sessionId);
    this.histories.set(sessionId, cached);
    return cached;
  }

  cacheHistory(sessionId: string, history: LogRecord[], token: number): void {
    this.histories.delete(sessionId);
    this.histories.set(sessionId, { history, token });
    while (this.histories.size > HISTORY_CACHE_SESSIONS) this.histories.delete(this.histories.keys().next().value!);
  }

  forgetHistory(sessionId: string): void {
    this.histories.delete(sessionId);
  }

  attach(sessionId: string, runId: string, recorder: EventRecorder, controller: AbortController): void {
    this.recorders.set(sessionId, { runId, recorder });
    this.controllers.set(runId, controller);
    for (const watcher of this.watchers.get(sessionId) ?? []) watcher();
  }

  detach(sessionId: string, runId: string, recorder: EventRecorder): void {
    if (this.recorders.get(sessionId)?.recorder === recorder) this.recorders.delete(sessionId);
    this.controllers.delete(runId);
    this.ended.set(runId, { first: recorder.events[0]?.position, ...(recorder.failure ? { unwritten: recorder } : {}) });
    while (this.ended.size > ENDED_RUNS) this.ended.delete(this.ended.keys().next().value!);
    for (const watcher of this.watchers.get(sessionId) ?? []) watcher();
  }

  /**
   * Whether the run ran (and ended) in this process: the position of its
   * first event, and if its events did not all reach the event log, its
   * recorder, the only place they are.
   */
  endedHere(runId: string): { first?: EventPosition; unwritten?: EventRecorder } | undefined {
    return this.ended.get(runId);
  }

  /** The recorder of the session's run in this process (only if it is run `runId`, when given). */
  recorder(sessionId: string, runId?: string): EventRecorder | undefined {
    const local = this.recorders.get(sessionId);
    return local && (runId === undefined || local.runId === runId) ? local.recorder : undefined;
  }

  /** Stops a run of this process at its next safe point; false when it does not run here. */
  stop(runId: string, reason: string): boolean {
    const controller = this.controllers.get(runId);
    if (!controller) return false;
    controller.abort(reason);
    return true;
  }

  /** Called when a run of the session starts or ends here. */
  watch(sessionId: string, listener: () => void): () => void {
    const set = this.watchers.get(sessionId) ?? new Set();
    set.add(listener);
    this.watchers.set(sessionId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.watchers.delete(sessionId);
    };
  }
}

/** A session's log as this process last held it, and the lease token it held it under. */
export interface CachedHistory {
  history: LogRecord[];
  token: number;
}
