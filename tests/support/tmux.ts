import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { npmBinariesForced } from './npm-binaries';
import { PtyTerminal } from './pty-terminal';

const tmuxInstalled = () => (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, 'tmux')));

/**
 * A real terminal: a detached tmux session on its own server socket, driven with send-keys and read with
 * capture-pane; where tmux is not installed (or ZERO_TEST_NPM_BINARIES=1), a pseudo-terminal of the
 * devDependencies @lydell/node-pty and @xterm/headless (see pty-terminal.ts), driven and read the same way.
 */
export class Terminal {
  private readonly socket = `zero-test-${randomBytes(4).toString('hex')}`;
  private readonly pty?: PtyTerminal;

  constructor(command: string[], env: Record<string, string | undefined>, size = { columns: 100, rows: 40 }) {
    if (!tmuxInstalled() || npmBinariesForced()) {
      this.pty = new PtyTerminal(command, env, size);
      return;
    }
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
    if (this.pty) return this.pty.type(text, ...keys);
    if (text) this.tmux('send-keys', '-t', 'main', '-l', text);
    for (const key of keys) this.tmux('send-keys', '-t', 'main', key);
  }

  press(...keys: string[]) {
    this.type('', ...keys);
  }

  /** What the screen shows (and the scrollback), as text; with `escapes`, with its colours as ANSI sequences. */
  screen(escapes = false): string {
    if (this.pty) return this.pty.screen(escapes);
    try {
      return this.tmux('capture-pane', '-p', '-t', 'main', '-S', '-500', ...(escapes ? ['-e'] : []));
    } catch {
      return '';
    }
  }

  /** Whether the program in the terminal has exited (the session is gone). */
  get exited(): boolean {
    if (this.pty) return this.pty.exited;
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
    if (this.pty) return this.pty.close();
    try {
      this.tmux('kill-server');
    } catch {
      // Already gone with its last session.
    }
  }
}
