import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asLambdaUser, sandboxRuntimeLoop } from './support/lambda-runtime';
import { DEFAULT_SANDBOX_LIMITS } from '@zero/runtime/environments/sandbox';
import { packTree, type SandboxEvent } from '@zero/runtime/environments/lambda/handler';

const root = join(import.meta.dirname, '..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface Invocation {
  id: string;
  event: SandboxEvent;
  /** How many times a GET /next was answered with this invocation. */
  renders: number;
  /** The first accepted POST .../response: what the invoker got back. */
  response?: string;
  answered: () => void;
  done: Promise<void>;
}

/**
 * A loopback Lambda Runtime API that behaves as RAPID does (aws-lambda-runtime-interface-emulator,
 * internal/lambda: invocationnext.go, core/states.go, rapidcore/server.go):
 * - GET /next while an invocation is in flight succeeds (RuntimeRunningState.Ready() returns nil)
 *   and renders the in-flight invocation again, request id included;
 * - POST /invocation/:id/response is accepted once, for the in-flight invocation's id only;
 * - after a response, the next GET /next, from whoever calls it, gets the next queued invocation.
 * Every invocation is queued from the start: the second is waiting for the environment the first runs in.
 */
async function fakeRuntimeApi() {
  const queue: Invocation[] = [];
  let inFlight: Invocation | undefined;
  const posted: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/2018-06-01/runtime/invocation/next') {
        if (!inFlight || inFlight.response !== undefined) inFlight = queue.shift();
        if (!inFlight) return res.writeHead(410).end();
        inFlight.renders++;
        return res.writeHead(200, { 'content-type': 'application/json', 'lambda-runtime-aws-request-id': inFlight.id }).end(JSON.stringify(inFlight.event));
      }
      if (req.method === 'POST' && req.url === '/test/runtime-exited') {
        // The runtime died: as Lambda does, the in-flight invocation fails and the environment starts a new runtime.
        if (inFlight && inFlight.response === undefined) {
          inFlight.response = '{"errorType":"Runtime.ExitError"}';
          inFlight.answered();
        }
        return res.writeHead(202).end();
      }
      const id = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/response$/.exec(req.url ?? '')?.[1];
      if (req.method === 'POST' && id) {
        posted.push(body);
        if (!inFlight || inFlight.id !== id || inFlight.response !== undefined) return res.writeHead(400).end('{"errorType":"InvalidInvokeID"}');
        inFlight.response = body;
        inFlight.answered();
        return res.writeHead(202).end('{"status":"OK"}');
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, posted, enqueue: (...more: Invocation[]) => queue.push(...more), close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * functions/sandbox.ts as Lambda runs it: the runtime's loop (GET /next, the handler, POST the
 * response) in a process with a process table of its own (a pid namespace, as a microVM has), the
 * deployed function's environment (ZERO_SANDBOX_REAP, ZERO_SANDBOX_EXEC, nodump.so preloaded) and
 * AWS_LAMBDA_RUNTIME_API pointing at the fake. A runtime that dies is started again in the same
 * environment (its processes, its /tmp), as Lambda does. Resolves when the runtime API has no more work.
 */
function runRuntime(port: number, sandboxRoot: string, native: string, { preload = true } = {}) {
  const lambdaUser = asLambdaUser();
  const script = sandboxRuntimeLoop;
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${port}`, ZERO_SANDBOX_ROOT: sandboxRoot, ZERO_SANDBOX_REAP: '1', ZERO_SANDBOX_EXEC: join(native, 'sandbox-exec') };
  const node = [process.execPath, '--import', tsx, '--input-type=module', '-e', script].map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ');
  const bootstrap = `until ${node}; do curl -s -X POST http://127.0.0.1:${port}/test/runtime-exited; done`;
  const child = spawn('bwrap', ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--die-with-parent', ...(preload ? ['--setenv', 'LD_PRELOAD', join(native, 'nodump.so')] : []), '--', ...lambdaUser, '/bin/sh', '-c', bootstrap], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  return new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the runtime exited ${code}: ${err}`)))));
}

function invocation(event: SandboxEvent): Invocation {
  let answered!: () => void;
  const done = new Promise<void>((resolve) => (answered = resolve));
  return { id: randomUUID(), event, renders: 0, answered, done };
}

describe('the lambda kind: a command cannot reach the Lambda Runtime API', () => {
  let native: string;
  let sandboxRoot: string;
  let copy: string;
  let archive: string;
  beforeAll(async () => {
    // The deployed function's native pieces, built for this machine (sst.config.ts ships the arm64 build).
    native = execFileSync(join(root, 'scripts/build-sandbox-exec.sh'), { encoding: 'utf8' }).trim();
    sandboxRoot = await mkdtemp(join(tmpdir(), 'zero-runtime-api-tmp-'));
    await chmod(sandboxRoot, 0o777);
    copy = await mkdtemp(join(tmpdir(), 'zero-runtime-api-copy-'));
    await mkdir(join(copy, 'src'));
    await writeFile(join(copy, 'src/index.ts'), 'export const a = 1;\n');
    archive = (await packTree(copy)).toString('base64');
  });
  afterAll(async () => {
    await rm(sandboxRoot, { recursive: true, force: true });
    await rm(copy, { recursive: true, force: true });
  });

  it("does not get the next invocation (another session's) nor answer its own: /next, a forged response and /next again all fail", async () => {
    const canary = `victim-${randomBytes(8).toString('hex')}`;
    const server = await fakeRuntimeApi();
    // The attack RAPID allows: GET /next re-renders the in-flight invocation with its request id, a
    // response under that id ends it, and the next GET /next is handed the queued one.
    const attack = `api() { { exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf "$1" "$2" >&3 && cat <&3; } 2>&1; }
first=$(api 'GET /2018-06-01/runtime/invocation/next HTTP/1.0\\r\\n\\r\\n')
echo "first: $first"
id=$(printf '%s' "$first" | tr -d '\\r' | sed -n 's/^lambda-runtime-aws-request-id: //Ip')
api 'POST /2018-06-01/runtime/invocation/%s/response HTTP/1.0\\r\\ncontent-length: 15\\r\\n\\r\\n{"forged":true}' "$id"
api 'GET /2018-06-01/runtime/invocation/next HTTP/1.0\\r\\n\\r\\n' | tee stolen.txt`;
    const attacker = invocation({ command: { script: attack }, limits: DEFAULT_SANDBOX_LIMITS, archive });
    const victim = invocation({ command: { script: 'test -n "$VICTIM_TOKEN" && ls src' }, env: { VICTIM_TOKEN: canary }, limits: DEFAULT_SANDBOX_LIMITS, archive });
    server.enqueue(attacker, victim);
    try {
      await runRuntime(server.port, sandboxRoot, native);
      await Promise.all([attacker.done, victim.done]);
    } finally {
      await server.close();
    }
    // Each invocation went to the runtime once, and each answer is the handler's own.
    expect([attacker.renders, victim.renders]).toEqual([1, 1]);
    const answer = JSON.parse(attacker.response!) as { outcome: { stdout: { text: string } } };
    expect(answer.outcome.stdout.text).toContain('socket: Permission denied');
    expect(JSON.parse(victim.response!)).toMatchObject({ outcome: { exitCode: 0, stdout: { text: 'index.ts\n' } } });
    // Nothing the runtime API was sent holds the victim's payload.
    expect(server.posted).toHaveLength(2);
    for (const body of server.posted) expect(body).not.toContain(canary);
  });

  it("cannot take over the function's own process: its memory, environment and sockets are out of reach", async () => {
    const probe = [
      // The command's parent is the function's Node process.
      `cat /proc/$PPID/environ >/dev/null 2>&1 && echo environ-read`,
      `{ exec 3<>/proc/$PPID/mem; } 2>/dev/null && echo mem-open`,
      `ls /proc/$PPID/fd >/dev/null 2>&1 && echo fd-listed`,
      // ptrace is refused outright (strace's own PTRACE_TRACEME fails before it could attach).
      `strace -o /dev/null true 2>&1 | head -1`,
      `echo probed`,
    ].join('\n');
    const probing = invocation({ command: { script: probe }, limits: DEFAULT_SANDBOX_LIMITS, archive });
    const server = await fakeRuntimeApi();
    server.enqueue(probing);
    try {
      await runRuntime(server.port, sandboxRoot, native);
    } finally {
      await server.close();
    }
    const answer = JSON.parse(probing.response!) as { outcome: { stdout: { text: string } } };
    expect(answer.outcome.stdout.text).not.toMatch(/environ-read|mem-open|fd-listed/);
    expect(answer.outcome.stdout.text).toContain('PTRACE_TRACEME: Operation not permitted');
    expect(answer.outcome.stdout.text).toContain('probed');
  });

  it('reaches no network: neither a loopback listener over TCP nor UDP (DNS included), whatever the program', async () => {
    const requests: string[] = [];
    const listener = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('reached');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    const probe = [
      `curl -sS --max-time 5 http://127.0.0.1:${port}/curl 2>&1`,
      `echo x > /dev/udp/127.0.0.1/53`,
      `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ${port}))' 2>&1 | tail -1`,
      `getent hosts example.com || echo no-dns`,
    ].join('\n');
    const probing = invocation({ command: { script: probe }, limits: DEFAULT_SANDBOX_LIMITS, archive });
    const server = await fakeRuntimeApi();
    server.enqueue(probing);
    try {
      await runRuntime(server.port, sandboxRoot, native);
    } finally {
      await server.close();
      await new Promise((resolve) => listener.close(resolve));
    }
    const { outcome } = JSON.parse(probing.response!) as { outcome: { stdout: { text: string }; stderr: { text: string } } };
    expect(outcome.stdout.text).not.toContain('reached');
    expect(outcome.stdout.text).toMatch(/curl: \(7\)/);
    expect(outcome.stdout.text).toContain('PermissionError: [Errno 13] Permission denied');
    expect(outcome.stdout.text).toContain('no-dns');
    expect(outcome.stderr.text).toContain('socket: Permission denied');
    expect(requests).toEqual([]);
  });

  it('reaps a command that killed its runtime and outlived it: the next runtime does not adopt it, and it never sees the next copy', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'zero-runtime-api-outside-'));
    await chmod(outside, 0o777);
    const next = await mkdtemp(join(tmpdir(), 'zero-runtime-api-next-'));
    try {
      await writeFile(join(next, 'secret.txt'), 'victim\n');
      const stray = `while :; do if [ -e "$HOME/secret.txt" ]; then cp "$HOME/secret.txt" ${outside}/; fi; done`;
      const attacker = invocation({
        command: { script: `setsid sh -c 'echo $$ > ${outside}/pid; ${stray}' </dev/null >/dev/null 2>&1 & while [ ! -s ${outside}/pid ]; do :; done; kill -9 $PPID` },
        limits: DEFAULT_SANDBOX_LIMITS,
        archive,
      });
      // Runs once the stray has copied the secret or is gone, whichever comes first.
      const victim = invocation({ command: { script: `pid=$(cat ${outside}/pid); while kill -0 $pid 2>/dev/null && [ ! -e ${outside}/secret.txt ]; do :; done; ls` }, limits: DEFAULT_SANDBOX_LIMITS, archive: (await packTree(next)).toString('base64') });
      const server = await fakeRuntimeApi();
      server.enqueue(attacker, victim);
      try {
        await runRuntime(server.port, sandboxRoot, native);
      } finally {
        await server.close();
      }
      expect(attacker.response).toBe('{"errorType":"Runtime.ExitError"}');
      expect(JSON.parse(victim.response!)).toMatchObject({ outcome: { exitCode: 0, stdout: { text: 'secret.txt\n' } } });
      expect(readdirSync(outside)).toEqual(['pid']);
    } finally {
      await rm(outside, { recursive: true, force: true });
      await rm(next, { recursive: true, force: true });
    }
  });

  it('refuses every command where the function runs dumpable (nodump.so not preloaded)', async () => {
    const probing = invocation({ command: { script: 'echo ran > ran.txt' }, limits: DEFAULT_SANDBOX_LIMITS, archive });
    const server = await fakeRuntimeApi();
    server.enqueue(probing);
    try {
      await runRuntime(server.port, sandboxRoot, native, { preload: false });
    } finally {
      await server.close();
    }
    expect(JSON.parse(probing.response!)).toEqual({ error: expect.stringContaining('runs dumpable') });
  });

  it('refuses every command where its confinement cannot be run', async () => {
    const { runSandboxEvent } = await import('@zero/runtime/environments/lambda/handler');
    const answer = await runSandboxEvent({ command: { script: 'echo ran' }, limits: DEFAULT_SANDBOX_LIMITS, archive }, { root: sandboxRoot, confine: join(sandboxRoot, 'no-such-sandbox-exec') });
    expect(answer).toEqual({ error: expect.stringContaining('commands are refused') });
  });
});
