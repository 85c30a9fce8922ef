import { createRequire } from 'node:module';
import type { IPty } from '@lydell/node-pty';
import type { IBufferCell, Terminal as XtermTerminal } from '@xterm/headless';

const require = createRequire(import.meta.url);

/** The bytes a terminal sends for tmux's key names (the cursor keys as the program's cursor-key mode asks). */
function keyBytes(key: string, applicationCursor: boolean): string {
  const cursor = (final: string) => (applicationCursor ? `\u001bO${final}` : `\u001b[${final}`);
  const keys: Record<string, string> = { Enter: '\r', Tab: '\t', Escape: '\u001b', BSpace: '\u007f', Up: cursor('A'), Down: cursor('B'), Right: cursor('C'), Left: cursor('D') };
  if (keys[key]) return keys[key]!;
  const control = /^C-([a-z])$/.exec(key);
  if (control) return String.fromCharCode(control[1]!.charCodeAt(0) - 96);
  throw new Error(`unknown key "${key}"`);
}

/** A cell's SGR sequences for the attributes that changed from `before` (bold, then the foreground colour), as tmux's capture-pane -e writes them. */
function sgrChanges(cell: IBufferCell, before: { bold: boolean; fg: string }): string {
  let out = '';
  const bold = !!cell.isBold();
  const fg = cell.isFgDefault()
    ? '39'
    : cell.isFgPalette()
      ? cell.getFgColor() < 8
        ? String(30 + cell.getFgColor())
        : cell.getFgColor() < 16
          ? String(90 + cell.getFgColor() - 8)
          : `38;5;${cell.getFgColor()}`
      : `38;2;${(cell.getFgColor() >> 16) & 255};${(cell.getFgColor() >> 8) & 255};${cell.getFgColor() & 255}`;
  if (bold !== before.bold) out += bold ? '\u001b[1m' : '\u001b[22m';
  if (fg !== before.fg) out += `\u001b[${fg}m`;
  before.bold = bold;
  before.fg = fg;
  return out;
}

/**
 * A real pseudo-terminal where tmux is not installed: the program runs on a pty of `@lydell/node-pty`
 * (prebuilt), and `@xterm/headless` (xterm.js's terminal emulator) keeps its screen, as tmux's would.
 */
export class PtyTerminal {
  private readonly pty: IPty;
  private readonly term: XtermTerminal;
  private done = false;

  constructor(command: string[], env: Record<string, string | undefined>, size: { columns: number; rows: number }) {
    const { spawn } = require('@lydell/node-pty') as typeof import('@lydell/node-pty');
    const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
    this.term = new Terminal({ cols: size.columns, rows: size.rows, scrollback: 1000, allowProposedApi: true });
    const vars = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    this.pty = spawn(command[0]!, command.slice(1), { cols: size.columns, rows: size.rows, env: { TERM: 'xterm-256color', ...vars } });
    this.pty.onData((data) => this.term.write(data));
    this.pty.onExit(() => (this.done = true));
  }

  type(text: string, ...keys: string[]) {
    if (text) this.pty.write(text);
    for (const key of keys) this.pty.write(keyBytes(key, this.term.modes.applicationCursorKeysMode));
  }

  screen(escapes = false): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      if (!escapes) {
        lines.push(line.translateToString(true));
        continue;
      }
      const state = { bold: false, fg: '39' };
      let text = '';
      for (let x = 0; x < line.length; x++) {
        const cell = line.getCell(x);
        if (!cell || cell.getWidth() === 0) continue;
        text += sgrChanges(cell, state) + (cell.getChars() || ' ');
      }
      lines.push(text.replace(/ +$/, ''));
    }
    return `${lines.join('\n')}\n`;
  }

  get exited(): boolean {
    return this.done;
  }

  close() {
    if (!this.done) this.pty.kill();
    this.term.dispose();
  }
}
