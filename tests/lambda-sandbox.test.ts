import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '@zero/runtime/environments/sandbox';
import { LambdaSandbox } from '@zero/runtime/environments/lambda/lambda-sandbox';

const root = join(import.meta.dirname, '..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CANARY_SECRET = `canary-secret-${randomBytes(6).toString('hex')}`;

/**
 * A loopback stand-in for Lambda's Invoke API over one warm execution environment: a single process
 * runs functions/sandbox.ts's handler for invocation after invocation, as Lambda reuses a thawed
 * environment. Its environment is what the deployed function has (no links, no secret: PATH, the
 * runtime's own variables and ZERO_SANDBOX_REAP), and like a microVM it has a process table of its
 * own: a new pid namespace (bubblewrap, the rest of the filesystem as it is), so the handler's
 * reaping sees only its own processes.
 */
async function fakeLambda(sandboxRoot: string) {
  const environments: Record<string, string>[] = [];
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', AWS_LAMBDA_FUNCTION_NAME: 'zero-sandbox', AWS_REGION: 'us-east-1', ZERO_SANDBOX_ROOT: sandboxRoot, ZERO_SANDBOX_REAP: '1' };
  environments.push(env);
  const script = `import { handler } from ${JSON.stringify(pathToFileURL(join(root, 'functions/sandbox.ts')).href)};
import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) process.stdout.write(JSON.stringify(await handler(JSON.parse(line))) + '\\n');`;
  const child = spawn('bwrap', ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--die-with-parent', '--', process.execPath, '--import', tsx, '--input-type=module', '-e', script], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let queue = Promise.resolve();
  // One invocation at a time, as one execution environment serves them.
  const invoke = (payload: string) => {
    const answer = queue.then(async () => {
      child.stdin.write(JSON.stringify(JSON.parse(payload)) + '\n');
      const next = await answers.next();
      if (next.done) throw new Error(`handler exited ${child.exitCode}: ${err}`);
      return next.value;
    });
    queue = answer.then(() => undefined, () => undefined);
    return answer;
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (!/^\/2015-03-31\/functions\/zero-sandbox\/invocations/.test(req.url ?? '')) return res.writeHead(404).end('{}');
      invoke(body).then(
        (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(answer),
        (error: Error) => res.writeHead(200, { 'x-amz-function-error': 'Unhandled' }).end(JSON.stringify({ errorMessage: error.message })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    const exited = child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined;
    child.stdin.end();
    await exited;
    await new Promise((resolve) => server.close(resolve));
  };
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, environments, close };
}

describe('the lambda kind: the sandbox function invoked as Lambda would, through its client', () => {
  let lambda: Awaited<ReturnType<typeof fakeLambda>>;
  let sandboxRoot: string;
  let copy: string;
  let sandbox: LambdaSandbox;
  beforeAll(async () => {
    process.env.ZERO_CANARY_SECRET = CANARY_SECRET;
    sandboxRoot = await mkdtemp(join(tmpdir(), 'zero-lambda-tmp-'));
    copy = await mkdtemp(join(tmpdir(), 'zero-lambda-copy-'));
    await mkdir(join(copy, 'src'));
    await writeFile(join(copy, 'readme.md'), 'hello\n');
    await writeFile(join(copy, 'src/index.ts'), 'export const a = 1;\n');
    lambda = await fakeLambda(sandboxRoot);
    sandbox = new LambdaSandbox({ functionName: 'zero-sandbox', endpoint: lambda.url, region: 'us-east-1', credentials: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake' } });
  });
  afterAll(async () => {
    delete process.env.ZERO_CANARY_SECRET;
    await lambda?.close();
    await rm(sandboxRoot, { recursive: true, force: true });
    await rm(copy, { recursive: true, force: true });
  });

  it('runs the command over the working copy and brings its changes back: new, changed and deleted files', async () => {
    const outcome = await sandbox.run({ command: { script: 'cat readme.md; echo made > made.txt; echo "// more" >> src/index.ts; rm readme.md; mkdir -p out && echo x > out/x.txt' }, workingCopy: copy, limits: DEFAULT_SANDBOX_LIMITS });
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false, stdout: { text: 'hello\n' } });
    expect(readFileSync(join(copy, 'made.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(join(copy, 'src/index.ts'), 'utf8')).toBe('export const a = 1;\n// more\n');
    expect(existsSync(join(copy, 'readme.md'))).toBe(false);
    expect(readFileSync(join(copy, 'out/x.txt'), 'utf8')).toBe('x\n');
  });

  it('gives the command PATH, HOME and LANG only; neither the function\'s environment nor the server\'s holds a secret', async () => {
    const outcome = await sandbox.run({ command: { script: 'env; echo ---; tr "\\0" "\\n" < /proc/$PPID/environ' }, workingCopy: copy, limits: DEFAULT_SANDBOX_LIMITS });
    const [own, parent] = outcome.stdout.text.split('---\n');
    const names = own!.trim().split('\n').map((line) => line.slice(0, line.indexOf('='))).sort();
    expect(names).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'SHLVL', 'TMPDIR', '_']);
    expect(outcome.stdout.text).not.toContain(CANARY_SECRET);
    // The function's own environment (its parent's) is what Lambda gives a function with no links.
    expect(parent).not.toMatch(/SECRET|TOKEN|KEY|ANTHROPIC|ZERO_(?!SANDBOX_(ROOT|REAP))/);
    for (const env of lambda.environments) expect(Object.keys(env).sort()).toEqual(['AWS_LAMBDA_FUNCTION_NAME', 'AWS_REGION', 'LANG', 'PATH', 'ZERO_SANDBOX_REAP', 'ZERO_SANDBOX_ROOT']);
  });

  it('wipes /tmp for every invocation: what one command left there the next never sees', async () => {
    await sandbox.run({ command: { script: 'echo left > "$TMPDIR/leftover"; echo also > "$HOME/../left-at-root"' }, workingCopy: copy, limits: DEFAULT_SANDBOX_LIMITS });
    const next = await sandbox.run({ command: { script: 'ls -A "$TMPDIR"; ls -A "$HOME/.."' }, workingCopy: copy, limits: DEFAULT_SANDBOX_LIMITS });
    expect(next.stdout.text).toBe('tmp\nworkspace\n');
    // And the function wiped it again when it answered.
    expect(await readdir(sandboxRoot)).toEqual(['tmp']);
  });

  it('leaves no process of a command alive after its invocation: a detached loop cannot read or change the next invocation\'s copy', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'zero-lambda-outside-'));
    const next = await mkdtemp(join(tmpdir(), 'zero-lambda-next-'));
    try {
      await writeFile(join(next, 'secret.txt'), `${CANARY_SECRET}\n`);
      // The reviewer's attack: a loop out of the command's process group (setsid) that waits for the
      // next invocation's files, copies them out and plants one. It writes its pid first.
      const stray = `while :; do if [ -e "$HOME/secret.txt" ]; then cp "$HOME/secret.txt" ${outside}/; echo X > "$HOME/planted.txt"; fi; done`;
      const first = await sandbox.run({
        command: { script: `setsid sh -c 'echo $$ > ${outside}/pid; ${stray}' </dev/null >/dev/null 2>&1 & while [ ! -s ${outside}/pid ]; do :; done; echo started` },
        workingCopy: copy,
        limits: DEFAULT_SANDBOX_LIMITS,
      });
      expect(first).toMatchObject({ exitCode: 0, stdout: { text: 'started\n' } });
      const pid = readFileSync(join(outside, 'pid'), 'utf8').trim();
      // The next invocation waits until the loop has planted its file or is gone, whichever comes first.
      const second = await sandbox.run({ command: { script: `while kill -0 ${pid} 2>/dev/null && [ ! -e planted.txt ]; do :; done; ls` }, workingCopy: next, limits: DEFAULT_SANDBOX_LIMITS });
      expect(second).toMatchObject({ exitCode: 0, stdout: { text: 'secret.txt\n' } });
      expect(readdirSync(next)).toEqual(['secret.txt']);
      expect(readdirSync(outside)).toEqual(['pid']);
    } finally {
      await rm(outside, { recursive: true, force: true });
      await rm(next, { recursive: true, force: true });
    }
  });

  it('applies the limits: a timeout kills the command and what it started in its group; a file over the disk limit is cut', async () => {
    const timed = await sandbox.run({ command: { script: 'sleep 30 & sleep 30' }, workingCopy: copy, limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 500 } });
    expect(timed).toMatchObject({ timedOut: true });
    const big = await sandbox.run({ command: { script: 'head -c 3000000 /dev/zero > big.bin; stat -c %s big.bin' }, workingCopy: copy, limits: { ...DEFAULT_SANDBOX_LIMITS, diskBytes: 1024 * 1024 } });
    expect(big.stdout.text).toBe(`${1024 * 1024}\n`);
  });

  it('reaps only where told its process table is its own (ZERO_SANDBOX_REAP=1, set on the deployed function), never on a shared machine', async () => {
    const { strayReaperFromEnv } = await import('@zero/runtime/environments/lambda/handler');
    expect(strayReaperFromEnv({})).toBeUndefined();
    expect(strayReaperFromEnv({ ZERO_SANDBOX_REAP: 'true' })).toBeUndefined();
  });

  it('refuses a command whose environment allows hosts, naming network.allow: the lambda kind has no network', async () => {
    const outcome = await sandbox.run({ command: { script: 'echo ran > ran.txt' }, workingCopy: copy, limits: DEFAULT_SANDBOX_LIMITS, network: { allow: ['registry.npmjs.org'] } });
    expect(outcome.startError).toMatch(/^network\.allow: the lambda kind has no network .* registry\.npmjs\.org/);
    expect(existsSync(join(copy, 'ran.txt'))).toBe(false);
    const { lambdaNetworkRefusal } = await import('@zero/runtime/environments/lambda/lambda-sandbox');
    expect(lambdaNetworkRefusal([])).toBeUndefined();
    expect(lambdaNetworkRefusal(undefined)).toBeUndefined();
  });

  it('refuses a malformed event with an error naming the field', async () => {
    const { runSandboxEvent } = await import('@zero/runtime/environments/lambda/handler');
    expect(await runSandboxEvent({ command: { argv: [] }, limits: {}, archive: '' }, { root: sandboxRoot })).toEqual({ error: expect.stringMatching(/^invalid sandbox event: command/) });
  });
});
