import type { StreamEvent } from '../wire';
import { compareEventPositions, formatEventId, type EventPosition } from './ids';

/** A streamed event with its position in the session's event log. */
export type IdentifiedEvent = StreamEvent & { event_id: string };

export interface RecorderStorage {
  /** Hands out the next event-log position (fenced by the run's lease). */
  allocate(): Promise<number>;
  /** Writes one batch; must reject if the run no longer holds the lease. */
  write(seq: number, events: StreamEvent[]): Promise<void>;
}

/**
 * Records one run's events: gives each its id at once (so live readers and the
 * log agree), keeps them in memory for readers in this process, and writes
 * them to the event log in batches flushed at least every `flushMs`.
 * `emit` never blocks the run.
 */
export class EventRecorder {
  readonly events: (IdentifiedEvent & { position: EventPosition })[] = [];
  private reserved?: number;
  private reserving?: Promise<void>;
  private waiting: StreamEvent[] = [];
  private batch?: { seq: number; events: StreamEvent[]; timer: NodeJS.Timeout };
  private writing: Promise<void> = Promise.resolve();
  private listeners = new Set<() => void>();
  private closedFlag = false;
  /** The first write failure (for example a lost lease); the run stops on it. */
  failure?: Error;

  constructor(
    private readonly storage: RecorderStorage,
    private readonly flushMs = 250,
  ) {}

  /** Reserves the first position; call before the first emit. */
  async open(): Promise<void> {
    this.reserved = await this.storage.allocate();
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  emit = (event: StreamEvent): void => {
    if (this.closedFlag) return;
    this.waiting.push(event);
    this.assign();
  };

  /** Flushes what is left and waits until every batch is written. */
  async close(): Promise<void> {
    while (this.waiting.length) {
      await this.reserving;
      this.assign();
    }
    this.flush();
    await this.writing;
    this.closedFlag = true;
    this.wake();
  }

  /** Called whenever an event is added or the recorder closes. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events after `after` (all when undefined), in order. */
  eventsAfter(after?: EventPosition) {
    if (!after) return this.events;
    let i = this.events.length;
    while (i > 0 && compareEventPositions(this.events[i - 1]!.position, after) > 0) i--;
    return this.events.slice(i);
  }

  private assign() {
    while (this.waiting.length) {
      if (this.failure) {
        this.keepUnwritten(this.waiting.shift()!);
        continue;
      }
      if (!this.batch) {
        if (this.reserved === undefined) {
          this.reserveNext();
          return;
        }
        const seq = this.reserved;
        this.reserved = undefined;
        this.batch = { seq, events: [], timer: setTimeout(() => this.flush(), this.flushMs) };
        this.reserveNext();
      }
      const event = this.waiting.shift()!;
      const position = { seq: this.batch.seq, index: this.batch.events.length };
      this.batch.events.push(event);
      this.events.push({ ...event, event_id: formatEventId(position), position });
      // The end of a run is written at once: readers elsewhere should not wait for it.
      if (event.type === 'done') this.flush();
    }
    this.wake();
  }

  /**
   * After a write or a reservation failed (the store is down, or another
   * instance took the lease), events no longer reach the event log, but
   * readers in this process still get them, up to the run's last event: they
   * are numbered on from the last event, in a place the log never fills.
   */
  private keepUnwritten(event: StreamEvent) {
    const last = this.events.at(-1)?.position;
    const position = last ? { seq: last.seq, index: last.index + 1 } : { seq: 0, index: 0 };
    this.events.push({ ...event, event_id: formatEventId(position), position });
  }

  private reserveNext() {
    if (this.reserving || this.reserved !== undefined) return;
    this.reserving = this.storage
      .allocate()
      .then((seq) => {
        this.reserved = seq;
      })
      .catch((error: Error) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.reserving = undefined;
        if (this.waiting.length) this.assign();
      });
  }

  private flush() {
    const batch = this.batch;
    if (!batch) return;
    clearTimeout(batch.timer);
    this.batch = undefined;
    this.writing = this.writing.then(() =>
      this.storage.write(batch.seq, batch.events).catch((error: Error) => {
        this.failure ??= error;
      }),
    );
  }

  private wake() {
    for (const listener of [...this.listeners]) listener();
  }
}
