import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** A real terminal: a detached tmux session on its own server socket, driven with send-keys and read with capture-pane. */
export class Terminal {
  private readonly socket = `zero-test-${randomBytes(4).toString('hex')}`;

  constructor(command: string[], env: Record<string, string | undefined>, size = { columns: 100, rows: 40 }) {
    const vars = Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${v}`);
    this.tmux('new-session', '-d', '-s', 'main', '-x', String(size.columns), '-y', String(size.rows), '--', 'env', '-i', ...vars, ...command);
  }

  private tmux(...args: string[]) {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Types text (literally), then presses each key (`Enter`, `C-c`, `C-d`, `Up`). */
  type(text: string, ...keys: string[]) {
    if (text) this.tmux('send-keys', '-t', 'main', '-l', text);
    for (const key of keys) this.tmux('send-keys', '-t', 'main', key);
  }

  press(...keys: string[]) {
    this.type('', ...keys);
  }

  /** What the screen shows (and the scrollback), as text; with `escapes`, with its colours as ANSI sequences. */
  screen(escapes = false): string {
    try {
      return this.tmux('capture-pane', '-p', '-t', 'main', '-S', '-500', ...(escapes ? ['-e'] : []));
    } catch {
      return '';
    }
  }

  /** Whether the program in the terminal has exited (the session is gone). */
  get exited(): boolean {
    try {
      this.tmux('has-session', '-t', 'main');
      return false;
    } catch {
      return true;
    }
  }

  /** Waits until the screen satisfies `check`; fails with the screen's content otherwise. */
  async waitFor(check: (screen: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < until) {
      screen = this.screen();
      if (check(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the terminal never showed what was expected; it shows:\n${screen}`);
  }

  close() {
    try {
      this.tmux('kill-server');
    } catch {
      // Already gone with its last session.
    }
  }
}
