import { mkdtempSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamEventSchema } from '@zero/agent/wire';
import { cliEnv, runCli } from './support/cli';
import { DEV, DEV_KEY, send, startHarness, type Harness } from './support/harness';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('the zero binary against a real Zero', () => {
  let h: Harness;
  let env: Record<string, string | undefined>;
  let blackhole: Server;
  beforeAll(async () => {
    h = await startHarness();
    env = cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY });
    const dir = mkdtempSync(join(tmpdir(), 'zero-cli-ledger-'));
    process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
    // Accepts connections and never answers: a server that hangs.
    blackhole = createServer(() => undefined);
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    blackhole.close();
    await h.close();
  });
  beforeEach(() => h.fake.reset());

  /** The text of the last message a person sent, as the model was given it. */
  const lastUserMessage = () => {
    const texts = h.fake.requests.at(-1)!.body.messages.flatMap((m) =>
      m.role !== 'user' ? [] : typeof m.content === 'string' ? [m.content] : (m.content as { type: string; text?: string }[]).filter((b) => b.type === 'text').map((b) => b.text!),
    );
    return texts.at(-1) ?? '';
  };

  it('one-shot: the answer on stdout, the tool call as one line on stderr, exit 0', async () => {
    h.fake.script({ text: 'Looking. ', toolCalls: [{ name: 'echo', input: { text: 'ping' } }] }, { text: 'All good.' });
    const run = await runCli(['agent', '--agent', 'tester', '-q', 'check it'], { env });
    expect(run.code).toBe(0);
    // Each step's text is a paragraph of its own, as the --json answer joins them.
    expect(run.stdout).toBe('Looking.\n\nAll good.\n');
    expect(run.stderr).toBe('✓ echo ping — echo: ping\n');
    expect(lastUserMessage()).toContain('check it');
  });

  it('the top level takes a prompt as claude does: zero -p, zero -q, and stdin piped into zero', async () => {
    h.fake.script({ text: 'by -p' }, { text: 'by -q' }, { text: 'by stdin' }, { text: 'by -p and stdin' });
    expect(await runCli(['-p', 'first question', '--agent', 'tester'], { env })).toMatchObject({ code: 0, stdout: 'by -p\n' });
    expect(lastUserMessage()).toContain('first question');
    expect(await runCli(['-q', 'second question', '--agent', 'tester'], { env })).toMatchObject({ code: 0, stdout: 'by -q\n' });
    expect(await runCli(['--agent', 'tester'], { env, input: 'third question\n' })).toMatchObject({ code: 0, stdout: 'by stdin\n' });
    expect(lastUserMessage()).toContain('third question');
    expect(await runCli(['-p', '--agent', 'tester'], { env, input: 'fourth question\n' })).toMatchObject({ code: 0, stdout: 'by -p and stdin\n' });
    expect(lastUserMessage()).toContain('fourth question');
    // A mistyped command is not sent as a project.
    const typo = await runCli(['sesions'], { env });
    expect(typo).toMatchObject({ code: 2, stderr: 'zero: unknown command "sesions" (a project is owner/repo); zero --help lists the commands\n' });
    expect(h.fake.requests).toHaveLength(4);
  });

  it('piped into head -1: --jsonl stops quietly when the reader leaves (no EPIPE)', async () => {
    h.fake.script({ text: Array.from({ length: 40 }, (_, i) => `w${i} `), deltaDelayMs: 20 });
    const { spawn } = await import('node:child_process');
    const { ZERO_BIN } = await import('./support/cli');
    const child = spawn(process.execPath, [ZERO_BIN, '-q', 'talk', '--agent', 'tester', '--jsonl'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    let stdout = '';
    // What `head -1` does: read up to the first line, then close the pipe.
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (c) => {
        stdout += c;
        if (stdout.includes('\n')) resolve();
      }),
    );
    child.stdout.destroy();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ type: 'start' });
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('--no-stream prints the answer once it is complete; -v picks the voice', async () => {
    h.fake.script({ text: Array.from({ length: 6 }, (_, i) => `w${i} `), deltaDelayMs: 40 });
    const { spawn } = await import('node:child_process');
    const { ZERO_BIN } = await import('./support/cli');
    const child = spawn(process.execPath, [ZERO_BIN, '-q', 'talk', '--agent', 'tester', '--no-stream', '-v', 'minimal'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    child.stdout.on('data', (c) => chunks.push(String(c)));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    // The whole answer comes in its first chunk, where streaming writes each of the six pieces as it comes
    // (the closing newline is a write of its own, which the pipe may or may not join to it).
    expect(chunks[0]).toMatch(/^w0 w1 w2 w3 w4 w5/);
    expect(chunks.join('')).toBe('w0 w1 w2 w3 w4 w5\n');
    const { json } = await send(h, 'GET', '/sessions?limit=1', DEV);
    const detail = await send(h, 'GET', `/sessions/${json.sessions[0].session_id}`, DEV);
    expect(detail.json.history.find((r: { kind: string }) => r.kind === 'user_message')).toMatchObject({ voice_mode: 'minimal' });
    expect((await runCli(['-q', 'x', '-v', 'loud'], { env })).code).toBe(1);
  });

  it('pipe: stdin is the message, or is appended to -q', async () => {
    h.fake.script({ text: 'one' }, { text: 'two' });
    const alone = await runCli(['agent', '--agent', 'tester'], { env, input: 'List all high severity findings\n' });
    expect(alone).toMatchObject({ code: 0, stdout: 'one\n' });
    expect(lastUserMessage()).toContain('List all high severity findings');
    const both = await runCli(['agent', '--agent', 'tester', '-q', 'Summarise this log:'], { env, input: 'line 1\nline 2\n' });
    expect(both).toMatchObject({ code: 0, stdout: 'two\n' });
    expect(lastUserMessage()).toContain('Summarise this log:\n\nline 1\nline 2');
  });

  it('--json prints one object at the end: text, tool calls, usage, session id, status', async () => {
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'Found **2** issues.' });
    const run = await runCli(['agent', '--agent', 'tester', '-q', 'scan', '--json'], { env });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      status: 'completed',
      text: 'Found **2** issues.',
      agent_id: 'tester',
      tool_calls: [{ name: 'echo', input: { text: 'x' }, result: 'echo: x', is_error: false }],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), cost_usd: expect.any(Number) },
    });
    const { json } = await send(h, 'GET', `/sessions/${result.session_id}`, DEV);
    expect(json.session.agent_id).toBe('tester');
  });

  it('--jsonl prints every event as it arrives, each a valid wire event with its id', async () => {
    h.fake.script({ text: ['a', 'b', 'c'] });
    const run = await runCli(['agent', '--agent', 'tester', '-q', 'abc', '--jsonl'], { env });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    for (const event of events) expect(streamEventSchema.safeParse(event).success).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['start', 'message', 'text', 'text', 'text', 'done']);
    expect(events.every((e) => typeof e.event_id === 'string')).toBe(true);
  });

  it('a run that ends in error exits non-zero with the reason on stderr', async () => {
    h.fake.script({ status: 400 });
    const run = await runCli(['agent', '--agent', 'tester', '-q', 'fail', '--json'], { env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error', error: { code: 'model_error' } });
    expect(run.stderr).toMatch(/^zero: the run ended with status "error": model_error: the model API failed \(HTTP 400\)/);
  });

  it('Ctrl+C (SIGINT) cancels the run through the cancel route and exits 4', async () => {
    h.fake.script({ text: Array.from({ length: 100 }, (_, i) => `w${i} `), deltaDelayMs: 50 });
    const { spawn } = await import('node:child_process');
    const { ZERO_BIN } = await import('./support/cli');
    const child = spawn(process.execPath, [ZERO_BIN, 'agent', '--agent', 'tester', '-q', 'talk'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    await new Promise<void>((resolve) => child.stdout.on('data', (c) => ((stdout += c), stdout.includes('w3 ') && resolve())));
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(4);
    expect(stderr).toContain('the run ended with status "cancelled"');
    expect(stdout).not.toContain('w99');
    const { json } = await send(h, 'GET', '/sessions?limit=1', DEV);
    const detail = await send(h, 'GET', `/sessions/${json.sessions[0].session_id}`, DEV);
    expect(detail.json.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'cancelled' });
  });

  it('a bad key: a clear message and exit 6', async () => {
    const run = await runCli(['agent', '-q', 'hi'], { env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: 'zk_not_a_key' }) });
    expect(run.code).toBe(6);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`zero: the key was refused by ${h.url} (401: the credential is invalid, expired or revoked); run "zero login" or set ZERO_KEY\n`);
  });

  it('an unreachable server: a clear message and exit 7, within a few seconds (refused, or never answering)', async () => {
    const refused = `http://127.0.0.1:${await closedPort()}`;
    const run = await runCli(['agent', '-q', 'hi'], { env: cliEnv({ ZERO_URL: refused, ZERO_KEY: DEV_KEY }) });
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(`zero: cannot reach Zero at ${refused}: connection refused (is the server running?)\n`);
    const hanging = `http://127.0.0.1:${(blackhole.address() as { port: number }).port}`;
    const slow = await runCli(['sessions'], { env: cliEnv({ ZERO_URL: hanging, ZERO_KEY: DEV_KEY, ZERO_CONNECT_TIMEOUT_MS: '1500' }) });
    expect(slow.code).toBe(7);
    expect(slow.stderr).toBe(`zero: cannot reach Zero at ${hanging}: no answer within 2 s\n`);
    expect(slow.ms).toBeLessThan(6000);
  });

  it('login checks the key, then stores URL and key readable by the owner only; a bad key stores nothing', async () => {
    const loginEnv = cliEnv();
    const refused = await runCli(['login', '--url', h.url, '--key', 'zk_wrong'], { env: loginEnv });
    expect(refused.code).toBe(6);
    expect(() => statSync(loginEnv.ZERO_CONFIG!)).toThrow();
    const ok = await runCli(['login', '--url', h.url, '--key', DEV_KEY, '--profile', 'local'], { env: loginEnv });
    expect(ok.code).toBe(0);
    expect(statSync(loginEnv.ZERO_CONFIG!).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(loginEnv.ZERO_CONFIG!, 'utf8'))).toEqual({ current: 'local', profiles: { local: { url: h.url, key: DEV_KEY } } });
    h.fake.script({ text: 'from the profile' });
    expect(await runCli(['agent', '--agent', 'tester', '-q', 'hi'], { env: loginEnv })).toMatchObject({ code: 0, stdout: 'from the profile\n' });
    // ZERO_KEY overrides the profile's key.
    const overridden = await runCli(['sessions'], { env: { ...loginEnv, ZERO_KEY: 'zk_wrong' } });
    expect(overridden.code).toBe(6);
  });

  it('a call that waits for approval: one-shot exits 5 naming the command; zero approve runs it once', async () => {
    const ledgerRuns = () => h.tools.executions.get('ledger') ?? 0;
    const { json } = await send(h, 'POST', '/sessions', DEV, { agent_id: 'tester' });
    const id = json.session.session_id;
    await send(h, 'PUT', `/sessions/${id}/permissions`, DEV, { permissions: { ledger: 'ask' } });
    h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: 'cli' } }] }, { text: 'Recorded.' });
    const before = ledgerRuns();
    const run = await runCli(['agent', '--session', id, '-q', 'record it'], { env });
    expect(run.code).toBe(5);
    const callId = /zero approve \S+ (\S+)/.exec(run.stderr)?.[1];
    expect(run.stderr).toContain(`zero approve ${id} ${callId}`);
    expect(ledgerRuns()).toBe(before);
    const approved = await runCli(['approve', id, callId!], { env });
    expect(approved).toMatchObject({ code: 0, stderr: `allowed ${callId}; the run goes on\n` });
    for (let i = 0; i < 100 && ledgerRuns() === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(ledgerRuns()).toBe(before + 1);
    const again = await runCli(['deny', id, callId!], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('conflict');
  });

  it('sessions list, show and share; agents with load errors; keys create, list, revoke', async () => {
    h.fake.script({ text: 'Shown answer.' });
    const chat = JSON.parse((await runCli(['agent', '--agent', 'tester', '-q', 'remember me', '--json'], { env })).stdout);
    const list = await runCli(['sessions'], { env });
    expect(list.stdout.split('\n')[1]).toContain(chat.session_id);
    const show = await runCli(['sessions', 'show', chat.session_id], { env });
    expect(show.stdout).toContain('> remember me');
    expect(show.stdout).toContain('tester: Shown answer.');
    const share = await runCli(['sessions', 'share', chat.session_id, 'bob', '--role', 'editor'], { env });
    expect(share).toMatchObject({ code: 0, stderr: `bob is editor of ${chat.session_id}\n` });

    const agents = await runCli(['agents'], { env });
    expect(agents.code).toBe(1);
    expect(agents.stdout).toMatch(/^tester +claude-test-model +An agent for the test suite/m);
    expect(agents.stdout).toMatch(/^error agents\/broken\.md: description: /m);

    const created = await runCli(['keys', 'create', '--user', 'carol', '--label', 'laptop'], { env });
    expect(created.code).toBe(0);
    const carolKey = created.stdout.trim();
    const keyId = /^key (\w+) for carol/.exec(created.stderr)![1]!;
    const carol = cliEnv({ ZERO_URL: h.url, ZERO_KEY: carolKey });
    expect((await runCli(['keys'], { env: carol })).stdout).toMatch(new RegExp(`^${keyId} +carol +laptop`, 'm'));
    expect((await runCli(['keys', 'revoke', keyId], { env: carol })).code).toBe(0);
    expect((await runCli(['keys'], { env: carol })).code).toBe(6);
  });

  it('projects push packs a folder, respecting .gitignore, and the agent reads what was pushed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-push-'));
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n*.log\n');
    writeFileSync(join(dir, 'src', 'index.js'), 'console.log(1)\n');
    writeFileSync(join(dir, 'package.json'), '{"name":"shop"}\n');
    writeFileSync(join(dir, 'debug.log'), 'secret\n');
    writeFileSync(join(dir, 'node_modules', 'x.js'), 'x\n');
    const run = await runCli(['projects', 'push', dir, 'acme/pushed'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('acme/pushed: 3 files');
    const { json } = await send(h, 'GET', '/projects/acme/pushed/files', DEV);
    expect(json.files.map((f: { path: string }) => f.path).sort()).toEqual(['.gitignore', 'package.json', 'src/index.js']);
  });

  it('zero run --plan sends a plan file; the server turns it into the prompt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-plan-'));
    writeFileSync(join(dir, 'task.md'), '# Audit\n\n## Goal\n\nList the risky dependencies\n\n## Context\n\nA Node shop.\n\n## Steps\n\n- Read package.json\n- Rank by severity\n');
    h.fake.script({ text: 'Two risky ones.' });
    const run = await runCli(['run', '--plan', join(dir, 'task.md'), '--agent', 'tester', '--json'], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', text: 'Two risky ones.', agent_id: 'tester' });
    expect(lastUserMessage()).toContain(
      'You are assisting with the following task:\n\nGOAL:\nList the risky dependencies\n\nCONTEXT:\nA Node shop.\n\nINSTRUCTIONS (follow as guidance):\n1. Read package.json\n2. Rank by severity',
    );
  });

  it('a malformed plan is refused naming the field and the line, and nothing reaches the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-plan-'));
    const file = join(dir, 'task.yaml');
    writeFileSync(file, 'goal: Audit\nsteps:\n  - Read\n  - 42\n');
    const run = await runCli(['run', '--plan', file], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`zero: ${file}:4: steps.1: Invalid input: expected string, received number\n`);
    writeFileSync(file, 'context: no goal here\n');
    expect((await runCli(['run', '--plan', file], { env })).stderr).toBe(`zero: ${file}:1: goal: is required\n`);
    expect(h.fake.requests).toHaveLength(0);
  });

  it('POST /chat takes a plan instead of a message, and refuses a bad one naming the field', async () => {
    h.fake.script({ text: 'Planned.' });
    const ok = await send(h, 'POST', '/chat', DEV, { plan: { goal: 'Check the lockfile', steps: ['Read it'], agent: 'tester' } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ status: 'completed', text: 'Planned.' });
    expect(lastUserMessage()).toContain('GOAL:\nCheck the lockfile\n\nINSTRUCTIONS (follow as guidance):\n1. Read it');
    const missing = await send(h, 'POST', '/chat', DEV, { plan: { steps: ['x'] } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ code: 'invalid_request', field: 'plan.goal' });
    const both = await send(h, 'POST', '/chat', DEV, { message: 'hi', plan: { goal: 'g' } });
    expect(both.status).toBe(400);
    expect(both.json.error).toMatchObject({ field: 'plan' });
    const neither = await send(h, 'POST', '/chat', DEV, {});
    expect(neither.json.error).toMatchObject({ field: 'message' });
    expect(h.fake.requests).toHaveLength(1);
  });

  it('with no server configured and none at the local default, zero agent runs Zero in its own process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zero-embedded-'));
    const local = cliEnv({ PORT: String(await closedPort()), ZERO_DATA_DIR: dataDir, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: h.fake.url });
    h.fake.script({ text: 'Answered in-process.' });
    const run = await runCli(['agent', '-q', 'hello', '--json'], { env: local, timeoutMs: 60_000 });
    expect(run.stderr).toContain(`running Zero in this process (data: ${dataDir})`);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', text: 'Answered in-process.', agent_id: 'zero' });
    // The session is in the data folder, as npm start would keep it.
    expect(statSync(join(dataDir, 'dynamodb')).isDirectory()).toBe(true);
  });

  it('sessions watch follows a session live as another client runs it', async () => {
    const { json } = await send(h, 'POST', '/sessions', DEV, { agent_id: 'tester' });
    const id = json.session.session_id;
    const { spawn } = await import('node:child_process');
    const { ZERO_BIN } = await import('./support/cli');
    const child = spawn(process.execPath, [ZERO_BIN, 'sessions', 'watch', id, '--jsonl'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    for (let i = 0; i < 200 && !stderr.includes('watching'); i++) await new Promise((r) => setTimeout(r, 20));
    h.fake.script({ text: 'Seen live.' });
    expect((await send(h, 'POST', '/chat', DEV, { session_id: id, message: 'hello watchers' })).status).toBe(200);
    for (let i = 0; i < 200 && !stdout.includes('"done"'); i++) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    const events = stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['message', 'start', 'text', 'done']));
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(events.filter((e) => e.type === 'text').map((e) => e.delta).join('')).toBe('Seen live.');
  });
});
