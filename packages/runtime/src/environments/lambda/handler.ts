import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { extractTarGz } from '../../projects/archive';
import { runProgram } from '../spawn';
import type { StrayProcessReaper } from './reaper';
import { filesOf, MAX_CHANGES_BASE64, sandboxEventSchema, type SandboxResult } from './wire';

export { StrayProcessReaper, strayReaperFromEnv } from './reaper';
export { packTree, type SandboxEvent } from './wire';

const PATH = '/usr/local/bin:/usr/bin:/bin';

export interface SandboxHandlerOptions {
  /** The folder wiped before every command and holding the working copy: Lambda's /tmp. */
  root: string;
  /**
   * Kills what a command left running once it ends (and anything left before the next starts), so
   * no process outlives its invocation. Only where the process table is the function's alone.
   */
  reaper?: Pick<StrayProcessReaper, 'reap'>;
  /**
   * The sandbox-exec program every command starts under (native/sandbox-exec.c): no socket but
   * AF_UNIX, so no network and no Lambda Runtime API; no ptrace. Set on the deployed function
   * (`ZERO_SANDBOX_EXEC`); where it is set but cannot be run, every command is refused, and so it is
   * where this process is dumpable (nodump.so not preloaded): a command of the same user could then
   * open its memory and make it call the Runtime API.
   */
  confine?: string;
}

/**
 * The sandbox function's work for one invocation: wipe `root` (Lambda's /tmp, the only writable
 * place), unpack the working copy into it, run the command with PATH, HOME and LANG only (and what
 * the tool gives) under its limits, and answer with its outcome and every file it changed, created
 * or deleted. With `confine`, the command (and all it starts) has no network and cannot reach the
 * Lambda Runtime API, so it can neither answer this invocation nor take the next. With a reaper, every process the command started (even one that left its process
 * group) is killed before its files are read, so none runs on into a later invocation. The function
 * has no role permissions and no secret: Firecracker is the boundary.
 */
export async function runSandboxEvent(raw: unknown, options: SandboxHandlerOptions): Promise<SandboxResult | { error: string }> {
  const parsed = sandboxEventSchema().safeParse(raw);
  if (!parsed.success) return { error: `invalid sandbox event: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; ')}` };
  const event = parsed.data;
  if (options.confine !== undefined && !(await access(options.confine, constants.X_OK).then(() => true, () => false))) {
    return { error: `the sandbox function cannot run its confinement ${options.confine}: commands are refused` };
  }
  if (options.confine !== undefined && (await dumpable())) {
    return { error: 'the sandbox function runs dumpable (LD_PRELOAD of nodump.so missing): a command could reach into it, so commands are refused' };
  }
  await options.reaper?.reap();
  await wipe(options.root);
  const copy = join(options.root, 'workspace');
  await mkdir(copy, { recursive: true });
  let extracted;
  try {
    extracted = await extractTarGz(Readable.from(Buffer.from(event.archive, 'base64')), { maxFiles: 20_000, maxEntries: 40_000, maxBytes: 512 * 1024 * 1024, maxPathBytes: 1024 });
  } catch (error) {
    return { error: `the working copy could not be unpacked: ${(error as Error).message}` };
  }
  const before = new Map<string, string>();
  for (const file of extracted.files) {
    await mkdir(dirname(join(copy, file.path)), { recursive: true });
    await writeFile(join(copy, file.path), file.body);
    before.set(file.path, digest(file.body));
  }
  const cwd = resolve(copy, event.cwd ?? '.');
  if (cwd !== copy && !cwd.startsWith(copy + sep)) return { error: `cwd "${event.cwd}" is outside the working copy` };
  await mkdir(cwd, { recursive: true });
  const inner = 'argv' in event.command ? event.command.argv : ['/bin/bash', '-c', event.command.script];
  const { limits } = event;
  // Limits set by the shell that then becomes the command (bash's units: KiB for -v and -f, seconds for -t).
  const ulimits = `ulimit -v ${Math.floor(limits.memoryBytes / 1024)} -u ${limits.processes} -f ${Math.floor(limits.diskBytes / 1024)} -t ${limits.cpuSeconds} -c 0 && exec "$@"`;
  const hasBash = await access('/bin/bash', constants.X_OK).then(() => true, () => false);
  const shell = [hasBash ? '/bin/bash' : '/bin/sh', '-c', ulimits, 'sandbox', ...inner] as const;
  const argv: [string, ...string[]] = options.confine ? [options.confine, ...shell] : [...shell];
  const outcome = await runProgram(argv, {
    cwd,
    env: { ...(event.env ?? {}), PATH, HOME: copy, LANG: 'C.UTF-8', TMPDIR: join(options.root, 'tmp') },
    limits: { timeoutMs: limits.timeoutMs, maxStdoutBytes: limits.maxStdoutBytes, maxStderrBytes: limits.maxStderrBytes },
  });
  // Before the copy is read: nothing the command left may change it, or anything after it.
  await options.reaper?.reap();
  const changes: SandboxResult['changes'] = [];
  const omitted: string[] = [];
  let budget = MAX_CHANGES_BASE64;
  const after = await filesOf(copy).catch(() => []);
  for (const path of after) {
    const body = await readFile(join(copy, path)).catch(() => undefined);
    if (!body || before.get(path) === digest(body)) continue;
    const encoded = body.toString('base64');
    if (encoded.length > budget) omitted.push(path);
    else {
      budget -= encoded.length;
      changes.push({ path, body: encoded });
    }
  }
  const remaining = new Set(after);
  for (const path of before.keys()) if (!remaining.has(path)) changes.push({ path, deleted: true });
  await wipe(options.root);
  return { outcome: { ...outcome, signal: outcome.signal ?? null }, changes, omitted };
}

/**
 * Whether a process of this user may read this one's memory. The kernel gives a non-dumpable
 * process's /proc files to root; as root there is no telling (and no user to keep out: Lambda never
 * runs a function as root).
 */
async function dumpable(): Promise<boolean> {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return false;
  const owner = await stat('/proc/self/environ').then((info) => info.uid, () => uid);
  return owner === uid;
}

function digest(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** Removes everything in `root` (not root itself). */
async function wipe(root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  for (const name of await readdir(root)) await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
  await mkdir(join(root, 'tmp'), { recursive: true });
}
