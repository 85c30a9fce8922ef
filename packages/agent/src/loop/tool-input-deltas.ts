/**
 * Gathers the pieces of each tool call's input as the model writes them and
 * hands them on at most every `everyMs` per call, the first time `everyMs`
 * after the call began: the model sends a few characters at a time, and an
 * event per piece would cost more in the event log than the input itself. An
 * input written faster than that is not streamed at all: its `tool_call`
 * follows at once and carries it whole.
 */
export class ToolInputDeltas {
  private readonly calls = new Map<string, { name: string; text: string; last: number; sent: boolean; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly send: (id: string, name: string, delta: string) => void,
    private readonly everyMs = 100,
  ) {}

  add(id: string, name: string, delta: string): void {
    let call = this.calls.get(id);
    if (!call) {
      call = { name, text: '', last: Date.now(), sent: false };
      this.calls.set(id, call);
    }
    call.text += delta;
    call.timer ??= setTimeout(() => this.flush(id), Math.max(0, call.last + this.everyMs - Date.now()));
  }

  /** The call's input is complete: hands on the rest of a streamed input (an unstreamed one goes whole in its `tool_call`). */
  complete(id: string): void {
    const call = this.calls.get(id);
    if (call?.sent) this.flush(id);
    clearTimeout(call?.timer);
    this.calls.delete(id);
  }

  /** Drops what is still gathered: the attempt is over. */
  clear(): void {
    for (const call of this.calls.values()) clearTimeout(call.timer);
    this.calls.clear();
  }

  private flush(id: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    clearTimeout(call.timer);
    call.timer = undefined;
    if (!call.text) return;
    const text = call.text;
    call.text = '';
    call.last = Date.now();
    call.sent = true;
    this.send(id, call.name, text);
  }
}
