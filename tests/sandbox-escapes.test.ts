import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '@zero/runtime/environments/sandbox';
import { HIDDEN_UNDER_USR, LocalSandbox } from '@zero/runtime/environments/local/bubblewrap';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { createBashTool } from '@zero/runtime/tools/bash';
import { createRunCommandTool } from '@zero/runtime/tools/run-command';
import type { ToolContext } from '@zero/runtime/tools/tool';
import { startHarness, type Harness } from './support/harness';
import { toolContext } from './support/tool-context';
import { modelCalls } from './support/tool-calls';

/**
 * The escapes of issue 28 item 1, tried against the `local` sandbox through bash and run_command
 * (in `full` mode with side effects allowed: the operator's loosest settings, where only the
 * sandbox stands between a prompt-injected agent and the server). None may read the canary file
 * outside the copy or the canary secret in a server process's environment, write or delete
 * outside the copy, reach a loopback listener, or leave a process running after its command.
 */

const PROJECT = 'acme/tools';
const OTHER = 'other/private';
const FILES = [
  { path: 'readme.md', body: 'tools readme\n' },
  { path: 'src/index.ts', body: 'export const answer = 42;\n' },
];

const CANARY_FILE = `canary-file-${randomBytes(6).toString('hex')}`;
const CANARY_SECRET = `canary-secret-${randomBytes(6).toString('hex')}`;

/** Waits until no process on this machine has `marker` in its command line (true), or 10 s pass (false). */
async function gone(marker: string): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!alive(marker)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function alive(marker: string): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
        return !zombie && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
}

describe('the local sandbox holds against the escapes of issue 28 (bash and run_command, full mode)', () => {
  let h: Harness;
  let scratch: string;
  let outside: string;
  let decoy: ChildProcess;
  let listener: Server;
  let port: number;
  let connections = 0;
  let registry: ToolRegistry;
  let context: ToolContext;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'zero-escapes-'));
    outside = await mkdtemp(join(tmpdir(), 'zero-canary-'));
    await writeFile(join(outside, 'secret.txt'), `${CANARY_FILE}\n`);
    await writeFile(join(outside, 'delete-me.txt'), 'keep me\n');
    // A server process whose environment holds the secret from its start, as the real server's does.
    decoy = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: { ...process.env, ZERO_CANARY_SECRET: CANARY_SECRET }, stdio: 'ignore' });
    process.env.ZERO_CANARY_SECRET = CANARY_SECRET;
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    const options = { scratchRoot: scratch, mode: 'full' as const, timeoutMs: 10_000 };
    h = await startHarness({ extraTools: [createRunCommandTool(options), createBashTool(options)] });
    await h.server.runtime.projects.putFiles(PROJECT, FILES.map((f) => ({ path: f.path, body: Buffer.from(f.body) })));
    registry = new ToolRegistry([createRunCommandTool(options), createBashTool(options)], { permissions: { side_effects: 'allow' } });
    const { sessionId } = await modelCalls(h, 'run_command', { command: 'pwd' }, { agent_id: 'commander', project_id: PROJECT });
    context = { ...toolContext(h.server.runtime, { sessionId, projectId: PROJECT, tools: ['run_command', 'bash'] }), agent: { id: 'commander', tools: ['run_command', 'bash'] } as never };
  });
  afterAll(async () => {
    decoy?.kill('SIGKILL');
    delete process.env.ZERO_CANARY_SECRET;
    await new Promise((resolve) => listener.close(resolve));
    await h?.close();
    await rm(scratch, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const run = (tool: 'bash' | 'run_command', command: string) => registry.execute(tool, { command }, context, { timeoutMs: 60_000, maxOutputChars: 200_000 });

  /** What every attempt must leave as it was. */
  async function expectHeld(result: { content: string }, marker?: string) {
    expect(result.content).not.toContain(CANARY_FILE);
    expect(result.content).not.toContain(CANARY_SECRET);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(`${CANARY_FILE}\n`);
    expect(existsSync(join(outside, 'delete-me.txt'))).toBe(true);
    expect(readdirSync(outside).sort()).toEqual(['delete-me.txt', 'secret.txt']);
    expect(connections).toBe(0);
    if (marker) expect(await gone(marker)).toBe(true);
  }

  it('runs at all: the sandbox is there and sees the copy (else every other test here would prove nothing)', async () => {
    expect(await new LocalSandbox().availability()).toMatchObject({ ok: true });
    const listed = await run('bash', 'ls; echo "$HOME"; id -u');
    expect(listed).toMatchObject({ is_error: false, content: expect.stringContaining('readme.md\nsrc\n/workspace\n1000\n') });
  });

  it('covers /usr/local/etc, /usr/src and the like with an empty folder: the host\'s npmrc or app folder is not there', async () => {
    const entries = () => HIDDEN_UNDER_USR.filter((folder) => existsSync(folder) && readdirSync(folder).length > 0);
    // The host must have something there to hide (this machine has /usr/local/etc/npmrc); else plant one.
    const canary = entries().length === 0 ? `/usr/src/zero-test-canary-${randomBytes(4).toString('hex')}` : undefined;
    if (canary) await mkdir(canary, { recursive: true });
    try {
      const covered = entries();
      expect(covered.length).toBeGreaterThan(0);
      const listed = await run('bash', `for d in ${covered.join(' ')}; do echo "[$d]"; ls -A "$d"; done; cat /usr/local/etc/npmrc; ls /usr/bin/env`);
      expect(listed.content).toContain(`--- stdout ---\n${covered.map((d) => `[${d}]\n`).join('')}/usr/bin/env\n`);
    } finally {
      if (canary) await rm(canary, { recursive: true, force: true });
    }
  });

  // The attack of issue 28, word for word: /proc listed through -fprintf, read through -files0-from.
  it('find -fprintf / -files0-from of /proc/<pid>/environ finds no server process and no secret', async () => {
    expect((await run('run_command', "find . -maxdepth 0 -fprintf list0 '\\057proc\\0'")).content).toMatch(/^exit code 0/);
    const result = await run('run_command', "find -files0-from list0 -maxdepth 2 -name environ -exec grep -a -o -h -E 'canary-secret-[0-9a-f]+|ANTHROPIC_API_KEY=[^\\x00]*' {} +");
    await expectHeld(result);
    // Only the sandbox's own processes are in its /proc: bwrap, prlimit's command, find, grep.
    const pids = await run('bash', 'ls /proc | grep -E "^[0-9]+$" | wc -l');
    expect(Number(/--- stdout ---\n(\d+)/.exec(pids.content)![1])).toBeLessThan(10);
    await expectHeld(await run('bash', `cat /proc/${decoy.pid}/environ; grep -a -h -o 'canary-secret-[0-9a-f]*' /proc/*/environ; env; cat /proc/1/environ`));
  });

  const reads = (file: string): [string, 'bash' | 'run_command', string][] => [
    ['cat by absolute path', 'run_command', `cat ${file}`],
    ['find -files0-from', 'bash', `printf '%s\\0' ${file} > l0; find -files0-from l0 -exec cat {} +`],
    ['grep -f (a short option value)', 'run_command', `grep -f${file} -r .`],
    ['grep --file=', 'run_command', `grep --file=${file} -r .`],
    ['tar --to-command', 'bash', `tar -cf t.tar readme.md && tar -xf t.tar --to-command='cat ${file}'`],
    ['tar --checkpoint-action', 'run_command', `tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='cat ${file}' readme.md`],
    ['tar --use-compress-program (-I)', 'run_command', `tar -I 'cat ${file} ;' -cf t2.tar readme.md`],
    ['sort --compress-program', 'bash', `seq 1 200000 | sort -S 1k --compress-program='cat ${file}' | head -2`],
    ['sed e', 'run_command', `sed -n '1e cat ${file}' readme.md`],
    ['awk system()', 'run_command', `awk 'BEGIN { system("cat ${file}") }'`],
    ['git -c alias', 'run_command', `git -c alias.leak='!cat ${file}' leak`],
    ['git -c core.pager', 'bash', `git init -q g && cd g && git -c core.pager='cat ${file}' -p log`],
    ['xargs', 'bash', `echo ${file} | xargs cat`],
    ['nice', 'run_command', `nice cat ${file}`],
    ['timeout', 'run_command', `timeout 5 cat ${file}`],
    ['setsid', 'run_command', `setsid -w cat ${file}`],
    ['perl', 'run_command', `perl -ne print ${file}`],
    ['python', 'run_command', `python3 -c "print(open('${file}').read())"`],
    ['node', 'run_command', `node -e "console.log(require('fs').readFileSync('${file}','utf8'))"`],
    ['curl file://', 'run_command', `curl -s file://${file}`],
    ['a symbolic link made by the command', 'bash', `ln -s ${file} link && cat link`],
    ['a hard link', 'bash', `ln ${file} hard && cat hard`],
    ['/proc/<server pid>/root', 'bash', `cat /proc/${process.pid}/root${file}; cat /proc/1/root${file}`],
    ['/proc/<server pid>/cwd', 'bash', `ls /proc/${process.pid}/cwd/; cat /proc/${process.pid}/cwd/package.json`],
    ['mount', 'bash', `mkdir m && mount --bind / m && cat m${file}`],
    ['unshare into a new namespace', 'bash', `unshare -r -m cat ${file}`],
  ];

  it.each(reads('__FILE__'))('reads nothing outside the copy: %s (%s)', async (_what, tool, template) => {
    const file = join(outside, 'secret.txt');
    const result = await run(tool, template.replaceAll('__FILE__', file));
    await expectHeld(result);
  });

  const writes: [string, 'bash' | 'run_command', string][] = [
    ['touch', 'run_command', 'touch __DIR__/written.txt'],
    ['rm', 'run_command', 'rm -f __DIR__/delete-me.txt'],
    ['cp', 'run_command', 'cp readme.md __DIR__/written.txt'],
    ['sed -i', 'run_command', "sed -i 's/canary/pwned/' __DIR__/secret.txt"],
    ['find -delete', 'run_command', 'find __DIR__ -name delete-me.txt -delete'],
    ['find -fprintf', 'run_command', "find . -maxdepth 0 -fprintf __DIR__/written.txt 'x'"],
    ['tar -x into the folder', 'bash', 'tar -cf t.tar readme.md && tar -xf t.tar -C __DIR__'],
    ['a redirection', 'bash', 'echo pwned > __DIR__/written.txt; echo pwned >> __DIR__/secret.txt'],
    ['awk system()', 'run_command', 'awk \'BEGIN { system("rm -f __DIR__/delete-me.txt") }\''],
    ['git -c alias', 'run_command', "git -c alias.w='!touch __DIR__/written.txt' w"],
    ['xargs rm', 'bash', 'echo __DIR__/delete-me.txt | xargs rm -f'],
    ['a symbolic link written through', 'bash', 'ln -s __DIR__ out && echo pwned > out/written.txt'],
    ['the server\'s own folder', 'bash', `touch ${process.cwd()}/written-by-sandbox.txt; rm -f ${process.cwd()}/package.json`],
  ];

  it.each(writes)('writes and deletes nothing outside the copy: %s (%s)', async (_what, tool, template) => {
    const result = await run(tool, template.replaceAll('__DIR__', outside));
    await expectHeld(result);
    expect(existsSync(join(process.cwd(), 'written-by-sandbox.txt'))).toBe(false);
    expect(existsSync(join(process.cwd(), 'package.json'))).toBe(true);
  });

  const network: [string, 'bash' | 'run_command', string][] = [
    ['curl', 'run_command', 'curl -s -m 3 http://127.0.0.1:__PORT__/'],
    ['bash /dev/tcp', 'bash', 'exec 3<>/dev/tcp/127.0.0.1/__PORT__ && echo connected'],
    ['node net', 'run_command', "node -e \"require('net').connect(__PORT__, '127.0.0.1').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))\""],
    ['python socket', 'run_command', "python3 -c \"import socket; socket.create_connection(('127.0.0.1', __PORT__), 3); print('connected')\""],
    ['the host\'s address instead of loopback', 'bash', 'for a in $(hostname -I 2>/dev/null) 10.0.0.1 172.17.0.1; do curl -s -m 1 http://$a:__PORT__/ && echo connected; done; true'],
  ];

  it.each(network)('reaches no loopback listener and no network: %s (%s)', async (_what, tool, template) => {
    const result = await run(tool, template.replaceAll('__PORT__', String(port)));
    await expectHeld(result);
    expect(result.content).not.toMatch(/\nconnected/);
  });

  const daemons: [string, 'bash' | 'run_command', string][] = [
    ['setsid -f', 'run_command', 'setsid -f sleep __MARK__'],
    ['nohup in the background', 'bash', 'nohup sleep __MARK__ >/dev/null 2>&1 &'],
    ['a double fork with setsid', 'bash', '( setsid sleep __MARK__ & ) ; echo started'],
    ['a detached node child', 'run_command', "node -e \"require('child_process').spawn('sleep', ['__MARK__'], { detached: true, stdio: 'ignore' }).unref()\""],
    ['script running a detaching command', 'run_command', "script -qc 'setsid -f sleep __MARK__' /dev/null"],
  ];

  it.each(daemons)('leaves no process running after its command: %s (%s)', async (_what, tool, template) => {
    const marker = `${1000 + Math.floor(Math.random() * 8000)}.${randomBytes(3).readUIntBE(0, 3)}`;
    const started = run(tool, template.replaceAll('__MARK__', marker));
    const result = await started;
    await expectHeld(result, marker);
  });

  it('a model-driven bash call (the whole path: model, permission, sandbox) reads no canary', async () => {
    const { result } = await modelCalls(h, 'bash', { command: `cat ${join(outside, 'secret.txt')}; grep -a -h canary /proc/*/environ; env` }, { agent_id: 'commander', project_id: PROJECT });
    expect(result?.content).toMatch(/^exit code \d+/);
    await expectHeld(result!);
  });
});

describe('two sessions: one session\'s sandbox cannot see the other\'s copy while both run', () => {
  let h: Harness;
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'zero-two-sessions-'));
    const options = { scratchRoot: scratch, mode: 'full' as const, timeoutMs: 30_000 };
    h = await startHarness({ extraTools: [createRunCommandTool(options), createBashTool(options)] });
    await h.server.runtime.projects.putFiles(PROJECT, FILES.map((f) => ({ path: f.path, body: Buffer.from(f.body) })));
    await h.server.runtime.projects.putFiles(OTHER, [{ path: 'private.md', body: Buffer.from('other-private-content\n') }]);
  });
  afterAll(async () => {
    await h?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('B writes a secret in its copy and waits; A, running meanwhile, searches every place it can see and finds nothing', async () => {
    const registry = new ToolRegistry([createBashTool({ scratchRoot: scratch, mode: 'full', timeoutMs: 30_000 })], { permissions: { side_effects: 'allow' } });
    const a = await modelCalls(h, 'run_command', { command: 'pwd' }, { agent_id: 'commander', project_id: PROJECT });
    const b = await modelCalls(h, 'run_command', { command: 'pwd' }, { agent_id: 'commander', project_id: OTHER });
    const contextOf = (sessionId: string, projectId: string) => ({ ...toolContext(h.server.runtime, { sessionId, projectId, tools: ['bash'] }), agent: { id: 'commander', tools: ['bash'] } as never });
    const secret = `b-secret-${randomBytes(6).toString('hex')}`;
    // B holds its sandbox open until the test releases it (a file the test writes into B's copy).
    const bRun = registry.execute('bash', { command: `echo ${secret} > b-secret.txt; until [ -e release ]; do sleep 0.05; done; echo released` }, contextOf(b.sessionId, OTHER), { timeoutMs: 60_000, maxOutputChars: 50_000 });
    const bCopy = await waitFor(() => findFile(scratch, 'b-secret.txt'));
    const aResult = await registry.execute(
      'bash',
      { command: `find / -name 'b-secret.txt' 2>/dev/null; grep -rs -l 'other-private-content\\|${secret}' /workspace /tmp /etc /run /proc/*/cwd/ 2>/dev/null | head; ls /proc; cat /proc/*/cwd/b-secret.txt /proc/*/root/workspace/b-secret.txt 2>/dev/null; ls ${scratch} 2>&1; echo searched` },
      contextOf(a.sessionId, PROJECT),
      { timeoutMs: 60_000, maxOutputChars: 200_000 },
    );
    expect(aResult.content).toContain('searched');
    expect(aResult.content).not.toContain(secret);
    expect(aResult.content).not.toContain('other-private-content');
    expect(aResult.content).not.toContain('b-secret.txt');
    // B was still running all along: it ends only when released.
    await writeFile(join(bCopy, 'release'), '');
    expect((await bRun).content).toContain('released');
  }, 90_000);
});

function findFile(root: string, name: string): string | undefined {
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.name === name) return entry.parentPath;
  }
  return undefined;
}

async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('timed out waiting');
}

describe('without bubblewrap, commands are refused, never run unsandboxed', () => {
  let h: Harness;
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'zero-no-bwrap-'));
    await mkdir(scratch, { recursive: true });
    const sandbox = new LocalSandbox({ bwrap: '/nonexistent/bwrap' });
    const options = { scratchRoot: scratch, mode: 'full' as const, sandbox };
    h = await startHarness({ extraTools: [createRunCommandTool(options), createBashTool(options)] });
    await h.server.runtime.projects.putFiles(PROJECT, FILES.map((f) => ({ path: f.path, body: Buffer.from(f.body) })));
  });
  afterAll(async () => {
    await h?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it.each([
    ['run_command', 'touch ran-unsandboxed.txt'],
    ['bash', 'touch ran-unsandboxed.txt'],
  ])('%s is refused with the reason, and nothing ran', async (tool, command) => {
    const { result, log } = await modelCalls(h, tool, { command }, { agent_id: 'commander', project_id: PROJECT });
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/^Commands are refused on this server: bubblewrap was not found at "\/nonexistent\/bwrap" \(install it: apt-get install bubblewrap, or set ZERO_BWRAP to its path\)\. Nothing ran/) });
    expect(log.filter((r) => r.kind === 'command')).toEqual([]);
    expect(readdirSync(scratch, { recursive: true }).filter((p) => String(p).endsWith('ran-unsandboxed.txt'))).toEqual([]);
  });

  it('ZERO_BWRAP pointing at a missing file is read from the environment and refuses the same way', async () => {
    const { sandboxOptionsFromEnv, createSandbox } = await import('@zero/runtime/environments/create-sandbox');
    const sandbox = createSandbox(sandboxOptionsFromEnv({ ZERO_BWRAP: '/nonexistent/bwrap' }));
    expect(await sandbox.availability()).toEqual({ ok: false, reason: expect.stringMatching(/^bubblewrap was not found at "\/nonexistent\/bwrap"/) });
  });
});

describe('the local sandbox\'s limits and network allowlist', () => {
  let copy: string;
  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'zero-sandbox-limits-'));
  });
  afterAll(async () => {
    await rm(copy, { recursive: true, force: true });
  });
  const limits = { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 200 * 1024 ** 2, processes: 20, diskBytes: 2 * 1024 ** 2, cpuSeconds: 1 };

  it('bounds a file\'s size (in the copy and in /tmp), memory, processes and CPU time', async () => {
    const sandbox = new LocalSandbox();
    const script = [
      'head -c 3000000 /dev/zero > big; stat -c "copy %s" big',
      'head -c 3000000 /dev/zero > /tmp/big; stat -c "tmp %s" /tmp/big',
      'python3 -c "x = bytearray(300 * 1024 * 1024); print(\'allocated\')" 2>&1 | tail -1',
      'python3 -c "import os, time\nn = 0\ntry:\n  for i in range(100):\n    if os.fork() == 0:\n      time.sleep(1); os._exit(0)\n    n += 1\nexcept OSError: print(\'forks stopped at\', n)"',
      'python3 -c "while True: pass"; echo "spinner ended with $?"',
    ].join('\n');
    const outcome = await sandbox.run({ command: { script }, workingCopy: copy, limits });
    expect(outcome.stdout.text).toContain(`copy ${2 * 1024 ** 2}\n`);
    expect(outcome.stdout.text).toContain(`tmp ${2 * 1024 ** 2}\n`);
    expect(outcome.stdout.text).toContain('MemoryError');
    expect(outcome.stdout.text).not.toContain('allocated');
    expect(outcome.stdout.text).toMatch(/forks stopped at 1\d\n/);
    expect(outcome.stdout.text).toMatch(/spinner ended with 137/);
  });

  it('with hosts allowlisted, reaches them through the egress proxy only; other hosts and direct connections are refused', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    let hits = 0;
    const allowed = createHttpServer((_req, res) => {
      hits++;
      res.end('hello from the allowed host\n');
    });
    await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.1', resolve));
    const port = (allowed.address() as { port: number }).port;
    try {
      // The deployment's outbound guard opens this loopback port (ZERO_OUTBOUND_ALLOW); the environment allowlists it.
      const sandbox = new LocalSandbox({ outbound: { allow: [`127.0.0.1:${port}`] } });
      const script = `curl -sS -m 5 http://127.0.0.1:${port}/via-proxy; curl -sS -m 5 http://example.com/ 2>&1 | head -1; curl -sS -m 5 --noproxy '*' http://127.0.0.1:${port}/direct 2>&1 | head -1`;
      const outcome = await sandbox.run({ command: { script }, workingCopy: copy, limits, network: { allow: [`127.0.0.1:${port}`] } });
      expect(outcome.stdout.text).toContain('hello from the allowed host\n');
      expect(outcome.stdout.text).toContain("refused: example.com is not on this environment's network allowlist");
      expect(outcome.stdout.text).toMatch(/Failed to connect to 127\.0\.0\.1 port \d+/);
      expect(hits).toBe(1);
      // Allowlisted by the environment but not by the deployment: the outbound guard still refuses loopback.
      const guarded = new LocalSandbox();
      const refused = await guarded.run({ command: { script: `curl -sS -m 5 http://127.0.0.1:${port}/guarded` }, workingCopy: copy, limits, network: { allow: [`127.0.0.1:${port}`] } });
      expect(refused.stdout.text).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
      expect(hits).toBe(1);
    } finally {
      allowed.close();
    }
  });
});
