import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, ZERO_BIN } from './support/cli';
import { DEV, DEV_KEY, send, startHarness, type Harness } from './support/harness';
import { Terminal } from './support/tmux';

const count = (text: string, piece: string) => text.split(piece).length - 1;

describe('the zero REPL in a real terminal (tmux)', () => {
  let h: Harness;
  let env: Record<string, string | undefined>;
  let terminal: Terminal | undefined;
  beforeAll(async () => {
    h = await startHarness();
    process.env.ZERO_TEST_LEDGER = join(mkdtempSync(join(tmpdir(), 'zero-repl-ledger-')), 'ledger.txt');
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.fake.reset();
    // A terminal with colours: the REPL renders Markdown; a fresh home for its history.
    env = { ...cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY, TERM: 'xterm-256color' }), NO_COLOR: undefined };
  });
  afterEach(() => terminal?.close());

  const open = async (...args: string[]) => {
    terminal = new Terminal([process.execPath, ZERO_BIN, 'agent', ...args], env);
    // The first start in a fresh checkout bundles the CLI first (bin/zero.mjs): seconds more on a loaded machine.
    await terminal.waitFor((s) => s.includes('›'), 20_000);
    return terminal;
  };
  const latestSession = async () => (await send(h, 'GET', '/sessions?limit=1', DEV)).json.sessions[0].session_id as string;

  it('streams the answer a block at a time, renders its Markdown, and shows a tool call as one line', async () => {
    h.fake.script(
      { text: ['First **paragraph** here.\n\n', ...Array.from({ length: 8 }, () => 'slow '), '\n\n'], deltaDelayMs: 150, toolCalls: [{ name: 'echo', input: { text: 'ping' } }] },
      { text: '## Findings\n\n| pkg | severity |\n|---|---|\n| express | high |\n\n```js\nconst x = 1;\n```\n' },
    );
    const t = await open('--agent', 'tester');
    t.type('scan it', 'Enter');
    // The first paragraph is on screen while the run is still streaming the next.
    const early = await t.waitFor((s) => s.includes('First paragraph here.'));
    expect(early).not.toContain('Findings');
    const screen = await t.waitFor((s) => s.includes('const x = 1;') && /tester › *\n/.test(s.split('scan it')[1] ?? ''));
    expect(screen).toMatch(/^✓ echo ping — echo: ping$/m);
    expect(screen).not.toContain('**');
    expect(screen).not.toContain('```');
    expect(screen).toMatch(/│ express │ high +│/);
    expect(t.screen(true)).toContain('\u001b[1mparagraph');
    expect(count(screen, 'First paragraph here.')).toBe(1);
    t.type('/last', 'Enter');
    await t.waitFor((s) => s.includes('"text": "ping"') && s.includes('echo: ping\n'));
  });

  it('Ctrl+C once cancels the running run and the REPL stays; twice leaves', async () => {
    h.fake.script({ text: Array.from({ length: 60 }, (_, i) => `Part ${i}.\n\n`), deltaDelayMs: 100 });
    const t = await open('--agent', 'tester');
    t.type('talk a lot', 'Enter');
    await t.waitFor((s) => s.includes('Part 2.'));
    t.press('C-c');
    await t.waitFor((s) => s.includes('(cancelled'));
    const detail = await send(h, 'GET', `/sessions/${await latestSession()}`, DEV);
    expect(detail.json.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'cancelled' });
    expect(t.screen()).not.toContain('Part 59.');
    expect(t.exited).toBe(false);
    // Twice in a row leaves (the first may already count as the second after the cancelling one).
    t.press('C-c');
    await new Promise((r) => setTimeout(r, 200));
    if (!t.exited) t.press('C-c');
    for (let i = 0; i < 100 && !t.exited; i++) await new Promise((r) => setTimeout(r, 30));
    expect(t.exited).toBe(true);
  });

  it('/agent switches the agent: the switch is shown, the prompt and the next run use the new agent', async () => {
    h.fake.script({ text: 'Tester here.' }, { text: 'Investigator here.' });
    const t = await open('--agent', 'tester');
    t.type('who are you', 'Enter');
    await t.waitFor((s) => s.includes('Tester here.'));
    t.type('/agent investigator', 'Enter');
    await t.waitFor((s) => s.includes('tester → investigator') && s.includes('investigator ›'));
    t.type('and now', 'Enter');
    await t.waitFor((s) => s.includes('Investigator here.'));
    const detail = await send(h, 'GET', `/sessions/${await latestSession()}`, DEV);
    expect(detail.json.session.agent_id).toBe('investigator');
    expect(detail.json.history.filter((r: { kind: string }) => r.kind === 'assistant').map((r: { agent_id: string }) => r.agent_id)).toEqual(['tester', 'investigator']);
  });

  it('a server restarted mid-run: the REPL reconnects with Last-Event-ID and shows every part once', async () => {
    h.fake.script({ text: Array.from({ length: 24 }, (_, i) => `Part ${i}.\n\n`), deltaDelayMs: 60 });
    const t = await open('--agent', 'tester');
    t.type('count', 'Enter');
    await t.waitFor((s) => s.includes('Part 3.'));
    await h.restartServer({ samePort: true, downMs: 600 });
    const screen = await t.waitFor((s) => s.includes('Part 23.'), 20_000);
    expect(screen).toContain('(the connection dropped; reconnecting…)');
    for (let i = 0; i < 24; i++) expect(count(screen, `Part ${i}.\n`)).toBe(1);
  });

  it('a call that waits for approval asks allow / deny / always; "always" runs it and the session stops asking', async () => {
    const { json } = await send(h, 'POST', '/sessions', DEV, { agent_id: 'tester' });
    const id = json.session.session_id;
    await send(h, 'PUT', `/sessions/${id}/permissions`, DEV, { permissions: { ledger: 'ask' } });
    const runs = () => h.tools.executions.get('ledger') ?? 0;
    const before = runs();
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'first' } }] }, { text: 'First recorded.' }, { toolCalls: [{ name: 'ledger', input: { entry: 'second' } }] }, { text: 'Second recorded.' });
    const t = await open('--session', id);
    t.type('record first', 'Enter');
    await t.waitFor((s) => s.includes('ledger wants to run with:') && s.includes('"entry": "first"') && s.includes('always for this session?'));
    expect(runs()).toBe(before);
    t.type('A', 'Enter');
    await t.waitFor((s) => s.includes('First recorded.'));
    expect(runs()).toBe(before + 1);
    t.type('record second', 'Enter');
    const screen = await t.waitFor((s) => s.includes('Second recorded.'));
    expect(count(screen, 'wants to run with:')).toBe(1);
    expect(runs()).toBe(before + 2);
    // Going on after a decision is what was asked for, not an interruption to report.
    expect(screen).not.toContain('interruption');
  });

  it('a spinner says what the model is doing while nothing else shows: writing a tool input, thinking', async () => {
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'a long input written slowly' } }], inputChunks: 4, inputDelayMs: 400 }, { text: ['Done.'], deltaDelayMs: 1500 });
    const t = await open('--agent', 'tester');
    t.type('go', 'Enter');
    await t.waitFor((s) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] writing the input of echo…/.test(s));
    // The tool ran; the model is asked again and has not answered yet.
    await t.waitFor((s) => s.includes('✓ echo') && /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking…/.test(s));
    const screen = await t.waitFor((s) => s.includes('Done.') && /tester › *\n/.test(s.split('Done.')[1] ?? ''));
    expect(screen).not.toContain('thinking…');
    expect(screen).not.toContain('writing the input');
  });

  it('keeps input history across runs (↑), takes multi-line input, and /usage sums the session', async () => {
    h.fake.script({ text: 'Got both lines.' });
    const first = await open('--agent', 'tester');
    first.type('line one\\', 'Enter');
    first.type('line two', 'Enter');
    await first.waitFor((s) => s.includes('Got both lines.'));
    const request = h.fake.requests.at(-1)!.body.messages.at(-1)!.content as { text: string }[];
    expect(request.at(-1)!.text).toContain('line one\nline two');
    first.type('/usage', 'Enter');
    await first.waitFor((s) => /1 runs: \d+ input, \d+ output, 0 cache read, 0 cache write tokens; \$\d\.\d{4}/.test(s));
    first.press('C-d');
    for (let i = 0; i < 100 && !first.exited; i++) await new Promise((r) => setTimeout(r, 30));
    expect(first.exited).toBe(true);
    const second = await open('--agent', 'tester');
    second.press('Up');
    await second.waitFor((s) => /tester › \/usage\s*$/.test(s.trimEnd()));
    second.press('Up');
    await second.waitFor((s) => /tester › line one\n?line two$/.test(s.trimEnd()));
  });

  it('shows delegation indented under the agent that delegated: zero → cereal, its answer, cereal ↩ zero', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'delegate_agent', input: { agent_id: 'cereal', task: 'Which dependencies are vulnerable?' } }] },
      { text: 'Cereal found lodash.' },
      { text: 'Summary: lodash.' },
    );
    const t = await open('--agent', 'zero');
    t.type('audit', 'Enter');
    const screen = await t.waitFor((s) => s.includes('Summary: lodash.'));
    const lines = screen.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(lines[at('zero → cereal')]).toMatch(/^  zero → cereal$/);
    expect(lines[at('Cereal found lodash.')]).toMatch(/^  Cereal found lodash\.$/);
    expect(lines[at('cereal ↩ zero')]).toMatch(/^  cereal ↩ zero$/);
    expect(lines[at('✓ delegate_agent')]).toMatch(/^✓ delegate_agent cereal — /);
    expect(at('zero → cereal')).toBeLessThan(at('Cereal found lodash.'));
    expect(at('Cereal found lodash.')).toBeLessThan(at('cereal ↩ zero'));
    expect(at('cereal ↩ zero')).toBeLessThan(at('Summary: lodash.'));
    // Each agent in its file's colour: cereal is yellow.
    expect(t.screen(true)).toMatch(/\u001b\[33mcereal/);
  });
});
