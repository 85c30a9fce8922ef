import type { StreamEvent } from '@zero/agent/wire';
import { ZeroApiError, ZeroConnectionError } from './errors';
import { readFrames } from './sse';

/** One event of a run as the client received it, with the id to resume after it. */
export interface ReceivedEvent {
  id?: string;
  event: StreamEvent;
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** How long to keep trying to reconnect a dropped stream before giving up. */
  reconnectForMs?: number;
  /** Called before each reconnection attempt (to tell the user). */
  onReconnect?: (attempt: number, error: unknown) => void;
}

/** Opens the session's live view after an event id (`GET /sessions/:id/events` with `Last-Event-ID`). */
export type OpenEvents = (sessionId: string, after: string | undefined, signal?: AbortSignal) => Promise<Response>;

/**
 * A run's events from its first stream (the chat response) to its `done`,
 * across dropped connections: when the stream ends early or fails, the
 * session's live view is opened after the last event id seen, so nothing is
 * repeated and nothing is lost (the server replays what the log holds after
 * that id). A `handover` (the run goes on in the background) is followed the
 * same way. Ends after the run's own `done`, `awaiting_approval` included.
 */
export class RunStream implements AsyncIterable<ReceivedEvent> {
  sessionId?: string;
  runId?: string;
  lastEventId?: string;

  constructor(
    private readonly first: (() => Promise<Response>) | undefined,
    private readonly openEvents: OpenEvents,
    private readonly options: FollowOptions & { sessionId?: string; runId?: string; after?: string; wholeSession?: boolean } = {},
  ) {
    this.sessionId = options.sessionId;
    this.runId = options.runId;
    this.lastEventId = options.after;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ReceivedEvent> {
    const { signal, reconnectForMs = 60_000 } = this.options;
    let open = this.first;
    let failingSince: number | undefined;
    let attempt = 0;
    while (!signal?.aborted) {
      try {
        const response = open ? await open() : await this.openEvents(this.sessionId!, this.lastEventId, signal);
        open = undefined;
        for await (const frame of readFrames(response, signal)) {
          if (frame.kind === 'reconnect') break;
          failingSince = undefined;
          attempt = 0;
          const { event, id } = frame;
          if (id) this.lastEventId = id;
          if (event.type === 'start' && !this.runId && !this.options.wholeSession) {
            this.runId = event.run_id;
            this.sessionId = event.session_id;
          }
          yield frame;
          if (event.type === 'done' && event.run_id === this.runId && !this.options.wholeSession) return;
        }
      } catch (error) {
        // A refusal (bad key, no such session) is final; only the connection is retried.
        if (signal?.aborted || ZeroApiError.isInstance(error) || !this.sessionId) throw error;
        failingSince ??= Date.now();
        if (Date.now() - failingSince > reconnectForMs) {
          throw new ZeroConnectionError('', `the connection dropped and did not come back within ${Math.round(reconnectForMs / 1000)} s`, error);
        }
        this.options.onReconnect?.(++attempt, error);
        await sleep(Math.min(250 * 2 ** Math.min(attempt, 4), 3000), signal);
        continue;
      }
      // The stream ended without the run's `done`: follow the session from the last id.
      if (!this.sessionId) return;
      open = undefined;
    }
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
