import type { SessionStore } from '../store/session-store';
import type { LocalRuns } from './run-registry';
import { compareEventPositions, formatEventId, type EventPosition } from '@zero/agent/events/ids';
import type { EventRecorder, IdentifiedEvent } from '@zero/agent/events/recorder';

export interface FeedOptions {
  /** Start after this position; from the beginning when undefined. */
  after?: EventPosition;
  signal?: AbortSignal;
  /** How often the event log is read when no run of the session is in this process, at first and after any event. */
  pollMs?: number;
  /** While nothing happens the interval doubles, up to this. */
  maxPollMs?: number;
  /**
   * A run this process is starting (or has just run), followed from its
   * first event: its events come from its recorder, without reading the
   * event log first. Events of other runs before it may be left out.
   */
  localRun?: string;
}

/**
 * A session's events from a cursor: the backlog from the event log, then live
 * events, with no gap and no repeat. Events of a run in this process come
 * from its recorder the moment they happen; runs elsewhere are followed by
 * reading the log every `pollMs`.
 *
 * Contiguity: a run's recorder holds all of that run's events, and every
 * earlier run's events are in the log before the next run starts (a run
 * flushes before it releases the lease). So reading the log, then the
 * recorder, never skips an event.
 */
export async function* followSession(
  deps: { sessions: SessionStore; runs: LocalRuns },
  sessionId: string,
  options: FeedOptions = {},
): AsyncGenerator<IdentifiedEvent> {
  const { signal, pollMs = 150, maxPollMs = 2000 } = options;
  let last: EventPosition = options.after ?? { seq: 0, index: -1 };
  let interval = pollMs;
  const after = (position: EventPosition) => compareEventPositions(position, last) > 0;
  let awaited = options.localRun;

  while (!signal?.aborted) {
    const before = last;
    let recorder: EventRecorder | undefined;
    // The awaited local run's recorder holds all its events: followed from its first, with no read of the log.
    let fromFirst = false;
    if (awaited) {
      const runId = awaited;
      awaited = undefined;
      // It attaches within a round trip or two; if it does not (another run goes first), the log is read as usual.
      if (!deps.runs.recorder(sessionId, runId) && !deps.runs.endedHere(runId)) await waitFor((wake) => deps.runs.watch(sessionId, wake), signal, pollMs);
      recorder = deps.runs.recorder(sessionId, runId);
      fromFirst = !!recorder;
      // Already over: its events are in the log, from its first.
      const first = recorder ? undefined : deps.runs.endedHere(runId)?.first;
      if (first) last = { seq: first.seq, index: first.index - 1 };
    }
    if (!fromFirst) {
      recorder = deps.runs.recorder(sessionId);
      const batches = await deps.sessions.readEvents(sessionId, last.seq - 1);
      for (const batch of batches) {
        for (const [index, event] of batch.events.entries()) {
          const position = { seq: batch.seq, index };
          if (!after(position)) continue;
          last = position;
          yield { ...event, event_id: formatEventId(position) };
        }
      }
    }

    const local = recorder;
    if (local) {
      // Follow the local run until it is over.
      while (!signal?.aborted) {
        // Checked right before waiting, with no await in between: events added while we yielded are not missed.
        const pending = fromFirst ? local.eventsAfter() : local.eventsAfter(last);
        if (pending.length === 0) {
          if (local.closed) break;
          await waitFor((wake) => local.onChange(wake), signal);
          continue;
        }
        fromFirst = false;
        for (const event of pending) {
          last = event.position;
          const { position: _position, ...wire } = event;
          yield wire as IdentifiedEvent;
        }
      }
      continue;
    }
    if (last !== before) interval = pollMs;
    await waitFor((wake) => deps.runs.watch(sessionId, wake), signal, interval);
    interval = Math.min(interval * 2, maxPollMs);
  }
}

/** Resolves on the first wake-up, abort or timeout. */
function waitFor(subscribe: (wake: () => void) => () => void, signal?: AbortSignal, timeoutMs?: number): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const unsubscribe = subscribe(done);
    signal?.addEventListener('abort', done, { once: true });
    if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs);
  });
}
