import type { LogRecord } from '../store/records';
import type { EventRecorder } from '../events/recorder';

/** Sessions whose log is kept in memory between runs of this process. */
const HISTORY_CACHE_SESSIONS = 200;
/** Run endings remembered for this process's chat readers (see `endedHere`). */
const ENDED_RUNS = 500;

/**
 * Runs active in this process, by session, so that readers here see their
 * events the moment they happen instead of waiting for the event log.
 */
export class LocalRuns {
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly histories = new Map<string, LogRecord[]>();
  /** Runs that ended here, by run id; a run whose events could not all be written keeps its recorder. */
  private readonly ended = new Map<string, EventRecorder | undefined>();

  /**
   * The session's log as this process last held it. The log is append-only
   * and positions are handed out in increasing order under the lease, so
   * whoever takes the lease next only needs to read what came after it.
   */
  cachedHistory(sessionId: string): LogRecord[] | undefined {
    const history = this.histories.get(sessionId);
    if (!history) return undefined;
    this.histories.delete(sessionId);
    this.histories.set(sessionId, history);
    return history;
  }

  cacheHistory(sessionId: string, history: LogRecord[]): void {
    this.histories.delete(sessionId);
    this.histories.set(sessionId, history);
    while (this.histories.size > HISTORY_CACHE_SESSIONS) this.histories.delete(this.histories.keys().next().value!);
  }

  forgetHistory(sessionId: string): void {
    this.histories.delete(sessionId);
  }

  attach(sessionId: string, runId: string, recorder: EventRecorder, controller: AbortController): void {
    this.recorders.set(sessionId, recorder);
    this.controllers.set(runId, controller);
    for (const watcher of this.watchers.get(sessionId) ?? []) watcher();
  }

  detach(sessionId: string, runId: string, recorder: EventRecorder): void {
    if (this.recorders.get(sessionId) === recorder) this.recorders.delete(sessionId);
    this.controllers.delete(runId);
    this.ended.set(runId, recorder.failure ? recorder : undefined);
    while (this.ended.size > ENDED_RUNS) this.ended.delete(this.ended.keys().next().value!);
    for (const watcher of this.watchers.get(sessionId) ?? []) watcher();
  }

  /**
   * Whether the run ran (and ended) in this process, and if its events did
   * not all reach the event log, its recorder: the only place they are.
   */
  endedHere(runId: string): { unwritten?: EventRecorder } | undefined {
    if (!this.ended.has(runId)) return undefined;
    const recorder = this.ended.get(runId);
    return recorder ? { unwritten: recorder } : {};
  }

  recorder(sessionId: string): EventRecorder | undefined {
    return this.recorders.get(sessionId);
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
