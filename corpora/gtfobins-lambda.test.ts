import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asLambdaUser, sandboxRuntimeLoop } from '../tests/support/lambda-runtime';
import { DEFAULT_SANDBOX_LIMITS } from '@zero/runtime/environments/sandbox';
import { packTree, type SandboxEvent } from '@zero/runtime/environments/lambda/handler';
import { aim, gtfobinsAttempts, sample, tally, type Attempt } from './gtfobins';
import { corporaDir } from './shared';

/**
 * The GTFOBins attempts of gtfobins.test.ts run through the `lambda` kind's sandbox function
 * (functions/sandbox.ts) as Lambda runs it: one warm runtime looping on a loopback Lambda Runtime API
 * (GET /next, the handler, POST the response), in a process table of its own (a pid namespace, as a
 * microVM has), as an unprivileged user where the tests run as root (Lambda's sbx_user), with the
 * deployed function's environment (ZERO_SANDBOX_EXEC: every command under the seccomp wrapper;
 * ZERO_SANDBOX_REAP; nodump.so preloaded) and its code folder mounted read-only (/var/task).
 * The "outside" of a command is the function's own file system and process: an escape is any
 * attempt whose output holds the canary file (kept beyond the function's reach, as the host is
 * beyond Firecracker) or the canary secret of the runtime's environment (where Lambda puts the
 * role's credentials), that changes the code folder, that leaves anything in the function's temp
 * root after its answer, that reaches the loopback listener, or that leaves a process running.
 */

const root = join(import.meta.dirname, '..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CANARY_FILE = `canary-file-${randomBytes(6).toString('hex')}`;
const CANARY_SECRET = `canary-secret-${randomBytes(6).toString('hex')}`;
const CODE = `export const handler = () => '${CANARY_FILE}';\n`;
/**
 * Every attempt is a whole invocation (pack, unpack, run, reap, wipe): all 273 of this machine take
 * under two minutes on 2 cores (beside the local run), so all run. ZERO_CORPUS_STRIDE=n runs every
 * n-th, in file order (and says so), where a slower machine needs it.
 */
const STRIDE = Math.max(1, Number(process.env.ZERO_CORPUS_STRIDE ?? 1) || 1);

/** A loopback Lambda Runtime API serving one invocation at a time: GET /next waits for the next one. */
async function runtimeApi() {
  const queue: { id: string; body: string; answer: (response: string) => void }[] = [];
  let inFlight: (typeof queue)[number] | undefined;
  let waiting: ServerResponse | undefined;
  let closed = false;
  const serve = () => {
    if (!waiting) return;
    if (closed) return void waiting.writeHead(410).end();
    inFlight = queue.shift();
    if (!inFlight) return;
    waiting.writeHead(200, { 'content-type': 'application/json', 'lambda-runtime-aws-request-id': inFlight.id }).end(inFlight.body);
    waiting = undefined;
  };
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/2018-06-01/runtime/invocation/next') {
        waiting = res;
        return serve();
      }
      if (req.method === 'POST' && req.url === '/test/runtime-exited') {
        // The runtime died: as Lambda does, the in-flight invocation fails and a new runtime starts.
        inFlight?.answer('{"errorType":"Runtime.ExitError"}');
        inFlight = undefined;
        return res.writeHead(202).end();
      }
      const id = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/response$/.exec(req.url ?? '')?.[1];
      if (req.method === 'POST' && inFlight && id === inFlight.id) {
        inFlight.answer(body);
        inFlight = undefined;
        return res.writeHead(202).end('{"status":"OK"}');
      }
      res.writeHead(400).end('{"errorType":"InvalidInvokeID"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    /** Resolves with the runtime's answer, once the runtime has asked for the next invocation (its handler has returned). */
    invoke: (event: SandboxEvent) =>
      new Promise<string>((answer) => {
        queue.push({ id: randomUUID(), body: JSON.stringify(event), answer });
        serve();
      }),
    idle: () => waiting !== undefined,
    close: () => {
      closed = true;
      serve();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The pids under `pid` (itself excluded), zombies left out. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      children.set(Number(ppid), [...(children.get(Number(ppid)) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

const until = async (done: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return done();
};

describe('GTFOBins against the lambda sandbox function, invoked as Lambda would', () => {
  let native: string;
  let sandboxRoot: string;
  let codeDir: string;
  let outside: string;
  let api: Awaited<ReturnType<typeof runtimeApi>>;
  let runtime: ReturnType<typeof spawn>;
  let exited: Promise<number | null>;
  let runtimeErr = '';
  let runtimeEnv: Record<string, string>;
  let listener: Server;
  let port: number;
  let connections = 0;
  let baseline: Set<number>;

  beforeAll(async () => {
    native = execFileSync(join(root, 'scripts/build-sandbox-exec.sh'), { encoding: 'utf8' }).trim();
    // The function's /tmp (writable by its user), its code folder, and the host beyond its reach.
    sandboxRoot = await mkdtemp(join(tmpdir(), 'zero-corpus-lambda-tmp-'));
    await chmod(sandboxRoot, 0o777);
    codeDir = await mkdtemp(join(tmpdir(), 'zero-corpus-lambda-task-'));
    await chmod(codeDir, 0o755);
    await writeFile(join(codeDir, 'index.mjs'), CODE);
    outside = await mkdtemp(join(tmpdir(), 'zero-corpus-lambda-canary-'));
    await writeFile(join(outside, 'secret.txt'), `${CANARY_FILE}\n`);
    await writeFile(join(outside, 'lib.so'), `${CANARY_FILE}\n`);
    process.env.ZERO_CANARY_SECRET = CANARY_SECRET;
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;

    api = await runtimeApi();
    const lambdaUser = asLambdaUser();
    const script = sandboxRuntimeLoop;
    // What Lambda gives a function with no links and no secret, plus the role's credentials it puts in every function's environment (the canary).
    runtimeEnv = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      AWS_LAMBDA_FUNCTION_NAME: 'zero-sandbox',
      AWS_REGION: 'us-east-1',
      LAMBDA_TASK_ROOT: codeDir,
      AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${api.port}`,
      AWS_SESSION_TOKEN: CANARY_SECRET,
      ZERO_SANDBOX_ROOT: sandboxRoot,
      ZERO_SANDBOX_REAP: '1',
      ZERO_SANDBOX_EXEC: join(native, 'sandbox-exec'),
    };
    const node = [process.execPath, '--import', tsx, '--input-type=module', '-e', script].map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ');
    const bootstrap = `until ${node}; do curl -s -X POST http://127.0.0.1:${api.port}/test/runtime-exited; done`;
    runtime = spawn(
      'bwrap',
      ['--dev-bind', '/', '/', '--ro-bind', codeDir, codeDir, '--unshare-pid', '--proc', '/proc', '--die-with-parent', '--setenv', 'LD_PRELOAD', join(native, 'nodump.so'), '--', ...lambdaUser, '/bin/sh', '-c', bootstrap],
      { cwd: root, env: runtimeEnv, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    runtime.stderr!.on('data', (c) => (runtimeErr += c));
    exited = new Promise((resolve) => runtime.on('exit', resolve));
    // The runtime's own processes, once it waits for its first invocation.
    if (!(await until(api.idle, 60_000))) throw new Error(`the runtime did not start: ${runtimeErr}`);
    baseline = new Set(descendants(runtime.pid!));
  });
  afterAll(async () => {
    delete process.env.ZERO_CANARY_SECRET;
    await api?.close();
    await exited;
    listener?.close();
    for (const dir of [sandboxRoot, codeDir, outside]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("holds nothing in the function's environment and gives the command none of it", async () => {
    // Besides the canary standing for the role's credentials: the function's links and secrets are none.
    expect(Object.keys(runtimeEnv).sort()).toEqual(['AWS_LAMBDA_FUNCTION_NAME', 'AWS_LAMBDA_RUNTIME_API', 'AWS_REGION', 'AWS_SESSION_TOKEN', 'LAMBDA_TASK_ROOT', 'LANG', 'PATH', 'ZERO_SANDBOX_EXEC', 'ZERO_SANDBOX_REAP', 'ZERO_SANDBOX_ROOT']);
    const copy = await mkdtemp(join(tmpdir(), 'zero-corpus-lambda-copy-'));
    try {
      await writeFile(join(copy, 'readme.md'), 'a project file\n');
      const answer = JSON.parse(await api.invoke({ command: { script: 'env; tr "\\0" "\\n" < /proc/$PPID/environ; tr "\\0" "\\n" < /proc/1/environ' }, limits: DEFAULT_SANDBOX_LIMITS, archive: (await packTree(copy)).toString('base64') })) as {
        outcome: { stdout: { text: string }; stderr: { text: string } };
      };
      const names = answer.outcome.stdout.text.split('\n').filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line)).map((line) => line.slice(0, line.indexOf('='))).sort();
      expect(names).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', 'TMPDIR', '_']);
      expect(JSON.stringify(answer)).not.toContain(CANARY_SECRET);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('no attempt escapes', async () => {
    const all = gtfobinsAttempts(join(corporaDir(), 'gtfobins', '_gtfobins'));
    const list = sample(all, STRIDE);
    const escapes: { attempt: Attempt; why: string; output: string }[] = [];
    for (const attempt of list) {
      const copy = await mkdtemp(join(tmpdir(), 'zero-corpus-lambda-copy-'));
      await writeFile(join(copy, 'readme.md'), 'a project file\n');
      const archive = (await packTree(copy)).toString('base64');
      await rm(copy, { recursive: true, force: true });
      // The input and the library are beyond the function; the output file is in its temp root (outside the copy), the output folder its code.
      const script = aim(attempt, { inputFile: join(outside, 'secret.txt'), outputFile: join(sandboxRoot, 'written.txt'), outputDir: codeDir, lib: join(outside, 'lib.so'), workspace: join(sandboxRoot, 'workspace'), port });
      const response = await api.invoke({ command: { script }, limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 5_000 }, archive });
      const whys: string[] = [];
      let output = response;
      try {
        const answer = JSON.parse(response) as { outcome?: { stdout: { text: string }; stderr: { text: string } }; changes?: { path: string; body?: string }[]; error?: string; errorType?: string };
        if (answer.outcome) output = `${answer.outcome.stdout.text}\n${answer.outcome.stderr.text}\n${(answer.changes ?? []).map((c) => `${c.path}: ${Buffer.from(c.body ?? '', 'base64').toString('utf8')}`).join('\n')}`;
        else if (answer.error) whys.push(`the handler refused: ${answer.error}`);
      } catch {
        whys.push('the answer is not JSON');
      }
      if (output.includes(CANARY_FILE)) whys.push('read the canary file');
      if (output.includes(CANARY_SECRET)) whys.push('read the canary secret');
      if (readdirSync(codeDir).join(',') !== 'index.mjs' || readFileSync(join(codeDir, 'index.mjs'), 'utf8') !== CODE) whys.push(`changed the code folder: ${readdirSync(codeDir).join(',')}`);
      if (readdirSync(outside).sort().join(',') !== 'lib.so,secret.txt' || readFileSync(join(outside, 'secret.txt'), 'utf8') !== `${CANARY_FILE}\n`) whys.push('changed the canary folder');
      // The runtime has asked for its next invocation: the handler has wiped its temp root and reaped.
      if (!(await until(api.idle))) whys.push('the runtime did not come back for the next invocation');
      const left = [...readdirSync(sandboxRoot), ...readdirSync(join(sandboxRoot, 'tmp')).map((name) => `tmp/${name}`)];
      if (left.join(',') !== 'tmp') whys.push(`left files in the temp root: ${left.join(',')}`);
      if (connections > 0) whys.push('reached the loopback listener');
      const stray = () => descendants(runtime.pid!).filter((pid) => !baseline.has(pid));
      if (!(await until(() => stray().length === 0))) whys.push(`left processes running: ${stray().join(',')}`);
      if (whys.length) escapes.push({ attempt, why: whys.join('; '), output: output.slice(0, 500) });
      connections = 0;
    }
    const sampled = STRIDE > 1 ? ` (a deterministic sample: every ${STRIDE}th of the ${all.length} attempts, in file order; ZERO_CORPUS_STRIDE=1 runs all)` : '';
    console.log(`GTFOBins corpus against the lambda sandbox function: ${tally(list)}${sampled}; escapes: ${escapes.length}`);
    for (const escape of escapes) console.log(`ESCAPE ${escape.attempt.program} ${escape.attempt.fn}: ${escape.why}\n${escape.attempt.code}\n${escape.output}`);
    expect(escapes).toEqual([]);
  });
});
