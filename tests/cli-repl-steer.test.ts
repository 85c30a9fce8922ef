import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ZERO_BIN } from './support/cli';
import { DEV, DEV_KEY, send, startHarness, type Harness } from './support/harness';
import { Terminal } from './support/tmux';

const PROMPT = /commander › *$/;

describe('steering from the zero REPL in a real terminal (tmux): status line, completion, diffs, /rewind, /fork', () => {
  let h: Harness;
  let terminal: Terminal | undefined;
  let cwd: string;
  beforeAll(async () => {
    h = await startHarness();
    // The folder the REPL runs in: what `@` mentions complete from.
    cwd = mkdtempSync(join(tmpdir(), 'zero-repl-steer-'));
    writeFileSync(join(cwd, 'report-q3.md'), '# Q3\n');
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'src', 'index.ts'), 'export {};\n');
  });
  afterAll(() => h.close());
  afterEach(() => {
    terminal?.close();
    h.fake.reset();
  });

  const open = async () => {
    const env = { ...cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY, TERM: 'xterm-256color' }), NO_COLOR: undefined };
    // Started in `cwd` (a shell changes into it, then runs the CLI in its place).
    terminal = new Terminal(['/bin/sh', '-c', 'cd "$0" && exec "$@"', cwd, process.execPath, ZERO_BIN, 'agent', '--agent', 'commander'], env);
    await terminal.waitFor((s) => s.includes('›'), 20_000);
    return terminal;
  };
  const lastLine = (screen: string) => screen.trimEnd().split('\n').at(-1) ?? '';
  const latestSession = async () => (await send(h, 'GET', '/sessions?limit=1', DEV)).json.sessions[0].session_id as string;

  it('completes /commands and @paths with Tab, and takes Alt+Enter as a new line', async () => {
    const t = await open();
    t.type('/rew', 'Tab');
    await t.waitFor((s) => lastLine(s).endsWith('› /rewind'));
    t.press('C-u');
    t.type('summarise @rep', 'Tab');
    await t.waitFor((s) => lastLine(s).endsWith('› summarise @report-q3.md'));
    t.type(' and @sr', 'Tab');
    await t.waitFor((s) => lastLine(s).endsWith('and @src/'));
    t.type('', 'Tab');
    await t.waitFor((s) => lastLine(s).endsWith('and @src/index.ts'));
    t.press('M-Enter');
    h.fake.script({ text: 'Read both.' });
    t.type('briefly', 'Enter');
    await t.waitFor((s) => s.includes('Read both.'));
    const asked = h.fake.requests.at(-1)!.body.messages.at(-1)!.content as { type: string; text?: string }[];
    expect(asked.find((b) => b.type === 'text')!.text).toContain('summarise @report-q3.md and @src/index.ts\nbriefly');
  });

  it('shows a status line and diffs of write_file and edit_file; /rewind undoes a run\'s writes; /fork goes on in a fork', async () => {
    const t = await open();
    h.fake.script({ toolCalls: [{ name: 'write_file', input: { path: 'artifacts/notes.md', content: 'Status: draft\nOwner: TBD\n' } }] }, { text: 'Drafted.' });
    t.type('draft the notes', 'Enter');
    let screen = await t.waitFor((s) => s.includes('Drafted.') && /commander · \S+ · context [\d.]+k? tokens · \$\d+\.\d{4}/.test(s) && PROMPT.test(lastLine(s)));
    // The write as a diff: its whole content added.
    expect(screen).toMatch(/^ {2}\+\+\+ artifacts\/notes\.md$/m);
    expect(screen).toMatch(/^ {2}\+Status: draft$/m);
    const id = await latestSession();

    h.fake.script(
      {
        toolCalls: [
          { name: 'edit_file', input: { path: 'artifacts/notes.md', old_string: 'Status: draft', new_string: 'Status: final' } },
          { name: 'write_file', input: { path: 'artifacts/later.md', content: 'later' } },
        ],
      },
      { text: 'Finished.' },
    );
    t.type('finish them', 'Enter');
    screen = await t.waitFor((s) => s.includes('Finished.') && PROMPT.test(lastLine(s)));
    expect(screen).toMatch(/^ {2}-Status: draft$/m);
    expect(screen).toMatch(/^ {2}\+Status: final$/m);
    // Coloured: removed in red, added in green.
    const coloured = t.screen(true);
    expect(coloured).toMatch(/\u001b\[31m-Status: draft/);
    expect(coloured).toMatch(/\u001b\[32m\+Status: final/);
    // The status line counts both runs' cost.
    expect(screen.match(/commander · \S+ · context [\d.]+k? tokens · \$\d+\.\d{4}/g)!.length).toBeGreaterThanOrEqual(2);

    // /rewind lists the points before each message and asks which.
    const history = (await send(h, 'GET', `/sessions/${id}`, DEV)).json.history as { seq: number; kind: string; text?: string }[];
    const second = history.findIndex((r) => r.kind === 'user_message' && r.text === 'finish them');
    const point = history[second - 1]!.seq;
    t.type('/rewind', 'Enter');
    await t.waitFor((s) => s.includes('Rewind the files to the point before which message?') && s.includes(`${point}  finish them`) && lastLine(s).includes('record (Enter: keep everything) ›'));
    t.type(String(point), 'Enter');
    screen = await t.waitFor((s) => s.includes('restored artifacts/notes.md') && s.includes('deleted artifacts/later.md'));
    const notes = await fetch(`${h.url}/api/v2/sessions/${id}/artifacts/notes.md`, { headers: DEV });
    expect(await notes.text()).toBe('Status: draft\nOwner: TBD\n');
    expect((await fetch(`${h.url}/api/v2/sessions/${id}/artifacts/later.md`, { headers: DEV })).status).toBe(404);

    // /fork: a fork at the latest record, and the REPL goes on in it.
    t.type('/fork', 'Enter');
    await t.waitFor((s) => /forked \S+ at record \d+: now in \S+/.test(s));
    const fork = await latestSession();
    expect(fork).not.toBe(id);
    const forked = (await send(h, 'GET', `/sessions/${fork}`, DEV)).json;
    expect(forked.session.forked_from).toMatchObject({ session_id: id, log_seq: history.at(-1)!.seq });
    h.fake.script({ text: 'In the fork.' });
    t.type('carry on', 'Enter');
    await t.waitFor((s) => s.includes('In the fork.'));
    const after = (await send(h, 'GET', `/sessions/${fork}`, DEV)).json.history as { kind: string; text?: string }[];
    expect(after.some((r) => r.kind === 'user_message' && r.text === 'carry on')).toBe(true);
    expect(((await send(h, 'GET', `/sessions/${id}`, DEV)).json.history as { text?: string }[]).some((r) => r.text === 'carry on')).toBe(false);
  });
});
