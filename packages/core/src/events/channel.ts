/**
 * A single-producer, multi-consumer queue of events. Every consumer gets every
 * event from the moment it subscribes (or from the start, with `replay`).
 * Pushing never blocks: the run must not slow down for a slow or gone client.
 */
export class EventChannel<T> {
  private readonly history: T[] = [];
  private readonly waiters = new Set<() => void>();
  private closed = false;

  push(event: T): void {
    if (this.closed) return;
    this.history.push(event);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Iterates every event from the first one, then live ones until close. */
  async *subscribe(signal?: AbortSignal): AsyncGenerator<T> {
    let index = 0;
    while (!signal?.aborted) {
      while (index < this.history.length) yield this.history[index++]!;
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  private wake() {
    for (const waiter of [...this.waiters]) waiter();
  }
}
