import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropic } from './support/fake-anthropic';

const root = join(import.meta.dirname, '..');
const startScript = join(root, 'local', 'start.ts');
// By absolute URL, so that Zero can run in a folder of the test's own (its agents/ and .zero/ are the working directory's).
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const KEY = 'zdev_local_start_test_key_0001';
const AUTH = { authorization: `Bearer ${KEY}` };

interface Zero {
  process: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The environment of `npm start` without anything the test's own environment might add. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ZERO_|ANTHROPIC_|AWS_|PORT$|HOST$|NODE_OPTIONS$|VITEST)/.test(name)),
  );
  // No title call after a session's first exchange: the fake model's scripts answer the runs' own calls.
  return { ...base, ZERO_DEV_KEY: KEY, ZERO_SESSION_TITLES: 'off', ...env };
}

function spawnZero(cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', tsx, startScript], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** `npm start` in `cwd`, resolved once it prints its URL. */
async function startZero(cwd: string, env: Record<string, string>): Promise<Zero> {
  const run = spawnZero(cwd, env);
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /Zero is listening on (\S+)/.exec(run.stdout());
      if (match) {
        run.child.stdout!.off('data', onData);
        resolve(match[1]!);
      }
    };
    run.child.stdout!.on('data', onData);
    run.exited.then((code) => reject(new Error(`Zero exited with ${code}: ${run.stderr()}`)));
  });
  return {
    process: run.child,
    url,
    stdout: run.stdout,
    stderr: run.stderr,
    stop: (signal = 'SIGTERM') => {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill(signal);
      return run.exited;
    },
  };
}

/** `npm start` that is expected to fail: its exit code and what it printed. */
async function failToStart(cwd: string, env: Record<string, string>) {
  const run = spawnZero(cwd, env);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function agentsOf(zero: Zero): Promise<Record<string, { description: string; model: string }>> {
  const response = await fetch(`${zero.url}/api/v2/agents`, { headers: AUTH });
  const { agents } = (await response.json()) as { agents: { id: string; description: string; model: string }[] };
  return Object.fromEntries(agents.map((agent) => [agent.id, agent]));
}

/** Asks until `check` passes (the watcher and the catalog's one-second revalidation take a moment). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 100 && !check(value); i++) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

const agentFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\nYou are ${name}.\n`;

describe('npm start', () => {
  let dir: string;
  const running: Zero[] = [];
  const start = async (cwd: string, env: Record<string, string>) => {
    const zero = await startZero(cwd, env);
    running.push(zero);
    return zero;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-start-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((zero) => zero.stop('SIGKILL')));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('picks up agent files edited, added and deleted while it runs, and serves no deleted agent after a restart', async () => {
    const cwd = join(dir, 'watch');
    await mkdir(join(cwd, 'agents'), { recursive: true });
    await writeFile(join(cwd, 'agents', 'alpha.md'), agentFile('Alpha', 'The first version.'));
    await writeFile(join(cwd, 'agents', 'beta.md'), agentFile('Beta', 'Here at the start.'));
    const env = { PORT: '0', ZERO_DATA_DIR: join(cwd, '.zero') };
    let zero = await start(cwd, env);
    expect(Object.keys(await agentsOf(zero)).sort()).toEqual(['alpha', 'beta']);

    await writeFile(join(cwd, 'agents', 'alpha.md'), agentFile('Alpha', 'The edited version.'));
    await writeFile(join(cwd, 'agents', 'gamma.md'), agentFile('Gamma', 'Added while running.'));
    await unlink(join(cwd, 'agents', 'beta.md'));
    const changed = await eventually(
      () => agentsOf(zero),
      (agents) => agents.alpha?.description === 'The edited version.' && !!agents.gamma && !agents.beta,
    );
    expect(Object.keys(changed).sort()).toEqual(['alpha', 'gamma']);
    expect(changed.alpha!.description).toBe('The edited version.');
    // The line is printed once the reloaded catalog lists the files, which the API may serve a moment before.
    const reloaded = /agents: alpha, gamma \(reloaded from .*; removed beta\)/;
    expect(await eventually(async () => zero.stdout(), (out) => reloaded.test(out))).toMatch(reloaded);

    expect(await zero.stop()).toBe(0);
    await unlink(join(cwd, 'agents', 'gamma.md'));
    zero = await start(cwd, env);
    expect(Object.keys(await agentsOf(zero))).toEqual(['alpha']);
  });

  it("lists a broken agent file in the agents: line with its error, not as loaded", async () => {
    const cwd = join(dir, 'broken');
    await mkdir(join(cwd, 'agents'), { recursive: true });
    await writeFile(join(cwd, 'agents', 'alpha.md'), agentFile('Alpha', 'Loads.'));
    await writeFile(join(cwd, 'agents', 'nameless.md'), '---\nname: nameless\n---\n\nNo description.\n');
    await writeFile(join(cwd, 'agents', 'storyteller.md'), '---\nname: storyteller\ndescription: Tells.\nmodel: fable\n---\n\nTell.\n');
    const zero = await start(cwd, { PORT: '0', ZERO_DATA_DIR: join(cwd, '.zero') });
    await eventually(async () => zero.stdout(), (out) => out.includes('  agents: '));
    const line = zero.stdout().split('\n').find((l) => l.startsWith('  agents: '))!;
    expect(line).toMatch(/^ {2}agents: alpha; not loaded: nameless \(description: [^)]+\); storyteller \(model "fable" is not a Claude model id/);
  });

  it("lets the console's origin, and only it, POST archives straight to s3rver, as the bucket's CORS rule does on AWS", async () => {
    const zero = await start(root, { PORT: '0', ZERO_DATA_DIR: join(dir, 'cors') });
    const started = await fetch(`${zero.url}/api/v2/projects/acme/cors/uploads`, { method: 'POST', headers: { 'content-type': 'application/json', ...AUTH }, body: '{}' });
    expect(started.status).toBe(201);
    const { url } = (await started.json()) as { url: string };
    // The preflight a browser sends before a cross-origin POST that reports upload progress.
    const preflight = async (origin: string, method: string) => {
      const response = await fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method } });
      await response.arrayBuffer();
      return { status: response.status, methods: response.headers.get('access-control-allow-methods') };
    };
    const port = new URL(zero.url).port;
    expect(await preflight(new URL(zero.url).origin, 'POST')).toEqual({ status: 200, methods: 'POST' });
    expect(await preflight(`http://localhost:${port}`, 'POST')).toEqual({ status: 200, methods: 'POST' });
    expect((await preflight(new URL(zero.url).origin, 'PUT')).status).toBe(403);
    expect((await preflight('http://127.0.0.1:1', 'POST')).status).toBe(403);
    expect((await preflight('https://elsewhere.example', 'POST')).status).toBe(403);
  });

  it('keeps its development key in the data folder: a restart keeps the same key, so an open console and `zero login` stay signed in', async () => {
    const cwd = join(dir, 'dev-key');
    await mkdir(join(cwd, 'agents'), { recursive: true });
    const dataDir = join(cwd, '.zero');
    // No ZERO_DEV_KEY: the key is made on the first start.
    const env = { PORT: '0', ZERO_DATA_DIR: dataDir, ZERO_DEV_KEY: '' };
    const keyOf = async (zero: Zero) => (await eventually(async () => /key: {4}(zdev_\S+) \(kept in .+; an administrator key/.exec(zero.stdout())?.[1], Boolean))!;
    let zero = await start(cwd, env);
    const key = await keyOf(zero);
    expect(key).toMatch(/^zdev_[A-Za-z0-9_-]{20,}$/);
    expect(zero.stdout()).toContain(`(kept in ${join(dataDir, 'dev-key')};`);
    expect((await stat(join(dataDir, 'dev-key'))).mode & 0o777).toBe(0o600);
    expect(await zero.stop()).toBe(0);

    zero = await start(cwd, env);
    expect(await keyOf(zero)).toBe(key);
    expect((await fetch(`${zero.url}/api/v2/agents`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it('says at start whether commands run in a sandbox; with bubblewrap missing (ZERO_BWRAP), that they are refused', async () => {
    const cwd = join(dir, 'sandbox');
    await mkdir(join(cwd, 'agents'), { recursive: true });
    const sandboxed = await start(cwd, { PORT: '0', ZERO_DATA_DIR: join(cwd, '.zero') });
    await eventually(async () => sandboxed.stdout(), (out) => out.includes('commands:'));
    expect(sandboxed.stdout()).toMatch(/\n  commands: run in a local sandbox \(bubblewrap \(bwrap\)/);
    await sandboxed.stop();
    const refused = await start(cwd, { PORT: '0', ZERO_DATA_DIR: join(cwd, '.zero'), ZERO_BWRAP: '/nonexistent/bwrap' });
    await eventually(async () => refused.stdout(), (out) => out.includes('commands:'));
    expect(refused.stdout()).toContain(
      '\n  commands: REFUSED: bubblewrap was not found at "/nonexistent/bwrap" (install it: apt-get install bubblewrap, or set ZERO_BWRAP to its path). run_command and bash answer with this reason and run nothing.\n',
    );
  });

  it('with the port taken, says so in one line, with what to do, and exits with 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const cwd = join(dir, 'port');
      await mkdir(join(cwd, 'agents'), { recursive: true });
      const { code, stderr } = await failToStart(cwd, { PORT: String(port), ZERO_DATA_DIR: join(cwd, '.zero') });
      expect(code).toBe(1);
      expect(stderr).toBe(
        `Zero could not start: port ${port} on 127.0.0.1 is already in use (another Zero, or another program). Stop it, or set PORT to a free port.\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('npm start with the port taken says so before it builds the console, which it builds only when its sources changed', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const npm = spawn('npm', ['start'], { cwd: root, env: cleanEnv({ PORT: String(port), ZERO_DATA_DIR: join(dir, 'npm-port') }), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      npm.stdout!.on('data', (chunk) => (stdout += chunk));
      npm.stderr!.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => npm.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(`Zero could not start: port ${port} on 127.0.0.1 is already in use`);
      // No build ran first: npm's own prestart build is gone, and Zero's comes after the port is checked.
      expect(stdout).not.toContain('build:console');
      expect(stdout).not.toContain('Building the console');
    } finally {
      blocker.close();
    }
  });

  it('with its data folder used by another running Zero, says so in one line and exits with 1; a killed one leaves no lock', async () => {
    const cwd = join(dir, 'data');
    await mkdir(join(cwd, 'agents'), { recursive: true });
    const dataDir = join(cwd, '.zero');
    const first = await start(cwd, { PORT: '0', ZERO_DATA_DIR: dataDir });

    const second = await failToStart(cwd, { PORT: '0', ZERO_DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `Zero could not start: the data folder ${dataDir} is in use by another running Zero (process ${first.process.pid}). Stop that one, or set ZERO_DATA_DIR to another folder.\n`,
    );
    expect((await fetch(`${first.url}/health`)).status).toBe(200);

    await first.stop('SIGKILL');
    const third = await start(cwd, { PORT: '0', ZERO_DATA_DIR: dataDir });
    expect((await fetch(`${third.url}/health`)).status).toBe(200);
  });

  describe('with a model', () => {
    const fake = new FakeAnthropic();
    beforeAll(() => fake.start());
    afterAll(() => fake.stop());

    it('ZERO_MODEL sets the model of every shipped agent', async () => {
      const zero = await start(root, {
        PORT: '0',
        ZERO_DATA_DIR: join(dir, 'model'),
        ZERO_MODEL: 'claude-haiku-4-5',
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: fake.url,
      });
      const agents = await agentsOf(zero);
      expect(Object.keys(agents).sort()).toEqual(['cereal', 'nikon', 'phreak', 'zap', 'zero']);
      for (const agent of Object.values(agents)) expect(agent.model).toBe('claude-haiku-4-5');

      fake.script({ text: 'Hello.' }, { text: 'Hello.' });
      for (const agent of ['zero', 'cereal']) {
        const response = await fetch(`${zero.url}/api/v2/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH },
          body: JSON.stringify({ agent_id: agent, message: 'Hi' }),
        });
        expect(response.status).toBe(200);
      }
      expect(fake.requests.map((request) => request.body.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5']);
    });

    it('starts, takes a project upload and answers a chat without printing a warning', async () => {
      const zero = await start(root, { PORT: '0', ZERO_DATA_DIR: join(dir, 'quiet'), ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url });
      for (const [path, body] of [
        ['src/index.js', 'console.log(1);\n'],
        ['src/empty.js', ''],
      ]) {
        const response = await fetch(`${zero.url}/api/v2/projects/acme/quiet/files/${path}`, { method: 'PUT', headers: AUTH, body });
        expect(response.status).toBe(201);
      }
      fake.script({ text: 'Hello.' });
      const chat = await fetch(`${zero.url}/api/v2/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ message: 'Hi', project_id: 'acme/quiet' }),
      });
      expect(chat.status).toBe(200);
      expect(await zero.stop()).toBe(0);
      expect(zero.stderr()).toBe('');
    });
  });
});
