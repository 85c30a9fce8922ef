import { ModelCallAborted, ModelError, type ModelEvent, type ModelUsage } from './provider';

/**
 * Calls `onIdle` once when `reset` has not been called for `ms`. A model
 * stream resets it on every event it receives, so only silence trips it.
 */
export class IdleTimer {
  private timer?: NodeJS.Timeout;
  /** True once the silence lasted too long. */
  fired = false;

  constructor(
    readonly ms: number | undefined,
    private readonly onIdle: () => void,
  ) {
    this.reset();
  }

  reset(): void {
    if (!this.ms || this.fired) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** What a provider's stream runs with: the signal that aborts its request, the idle timer it resets on each event, and why it was cut short. */
export interface StreamGuard {
  signal: AbortSignal;
  idle: IdleTimer;
  /** Why the stream ended early (the caller's abort, or silence past the idle timeout); undefined when nothing cut it. */
  interrupted: (usage?: ModelUsage) => Error | undefined;
}

/**
 * Runs a provider's stream under the caller's signal and an idle timeout:
 * either aborts its request, and `interrupted` says which (an SDK ends an
 * aborted stream quietly, as if it were complete).
 */
export async function* guardedStream(signal: AbortSignal, idleTimeoutMs: number | undefined, stream: (guard: StreamGuard) => AsyncGenerator<ModelEvent>): AsyncGenerator<ModelEvent> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  if (signal.aborted) abort();
  const idle = new IdleTimer(idleTimeoutMs, abort);
  const interrupted = (usage?: ModelUsage): Error | undefined => {
    if (signal.aborted) return new ModelCallAborted(usage);
    if (idle.fired) return new ModelError(`the model stream sent nothing for ${idle.ms} ms`, true);
    return undefined;
  };
  try {
    yield* stream({ signal: controller.signal, idle, interrupted });
  } finally {
    idle.stop();
    signal.removeEventListener('abort', abort);
  }
}
