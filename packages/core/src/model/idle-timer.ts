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
