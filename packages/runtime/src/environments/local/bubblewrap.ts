import { constants } from 'node:fs';
import { access, chmod, lchown, lstat, mkdir, mkdtemp, readdir, readlink, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import type { OutboundOptions } from '@zero/agent/net/outbound';
import { runProgram, type ProgramOutcome } from '../spawn';
import { SandboxUnavailableError, type Sandbox, type SandboxAvailability, type SandboxRunSpec } from '../sandbox';
import { startEgressProxy, RELAY_SCRIPT, type EgressProxy } from './egress-proxy';
import { PACKAGES_MOUNT, prefixEnvironment } from './packages-mount';

/** Where the working copy appears inside the sandbox; HOME and the default cwd. */
export const SANDBOX_WORKSPACE = '/workspace';
/** The uid and gid a command has inside the sandbox (a user namespace maps them to `hostUid`). */
const INSIDE_ID = 1000;
/** PATH inside the sandbox: the read-only system's programs only. */
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
/** The only files of the host's /etc a command sees (read-only); nothing there holds a secret. */
const SYSTEM_ETC = ['alternatives', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'ssl', 'ca-certificates', 'mime.types', 'magic', 'magic.mime', 'os-release', 'debian_version', 'protocols', 'services', 'inputrc', 'bash.bashrc', 'profile'];
/**
 * Folders under /usr that commonly hold configuration or an application rather than programs
 * (/usr/local/etc/npmrc with a registry token, a Docker image's /usr/src/app with its .env): each
 * that exists is covered by an empty read-only tmpfs, so the sandbox sees /usr's programs and
 * libraries but not these.
 */
export const HIDDEN_UNDER_USR = ['/usr/local/etc', '/usr/etc', '/usr/src', '/usr/local/src', '/usr/local/share/.config'];
/** Synthesised in place of the host's: no host users, no host names. */
const SYNTHETIC_ETC: Record<string, string> = {
  passwd: `zero:x:${INSIDE_ID}:${INSIDE_ID}:sandbox:${SANDBOX_WORKSPACE}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  group: `zero:x:${INSIDE_ID}:\nnogroup:x:65534:\n`,
  hosts: '127.0.0.1 localhost sandbox\n::1 localhost\n',
  hostname: 'sandbox\n',
  'nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
  'resolv.conf': '',
};

export interface LocalSandboxOptions {
  /** bubblewrap's path (`ZERO_BWRAP`); by default `bwrap` found on PATH. */
  bwrap?: string;
  /**
   * The host user commands run as when the server runs as root (default 65534, `nobody`): a process
   * count limit binds only a user other than root, and root's capabilities stay outside. A server
   * that is not root runs commands as itself, in a user namespace of their own.
   */
  hostUid?: number;
  /** The outbound guard's settings (`ZERO_OUTBOUND_ALLOW`), applied to every host an environment's allowlist opens. */
  outbound?: OutboundOptions;
}

/**
 * The `local` kind: each command in its own bubblewrap sandbox — new user, mount, pid, network, IPC
 * and UTS namespaces, no capabilities, no further user namespaces. It sees the working copy
 * (read-write at /workspace), the host's /usr read-only (but not HIDDEN_UNDER_USR), a handful of harmless /etc files, its own
 * /proc and /dev, and an empty /tmp of bounded size; its environment is PATH, HOME and LANG plus
 * what the tool gives. An environment's installed packages, when it has any, are mounted read-only
 * at /opt/zero-env, their programs first on PATH. Limits are set inside with prlimit; killing bubblewrap (timeout, abort, or
 * the server dying) ends its pid namespace and with it every process the command started.
 */
export class LocalSandbox implements Sandbox {
  readonly kind = 'local' as const;
  private readonly bwrap: string;
  private readonly hostUid: number | undefined;
  private readonly outbound: OutboundOptions;
  private support?: Promise<string>;
  private probe?: Promise<SandboxAvailability>;
  private readonly owned = new Set<string>();

  constructor(options: LocalSandboxOptions = {}) {
    this.bwrap = options.bwrap || 'bwrap';
    this.hostUid = process.getuid?.() === 0 ? (options.hostUid ?? 65534) : undefined;
    this.outbound = options.outbound ?? {};
  }

  /** Runs `true` in a sandbox once; the answer is kept (start-up says it, every refused command repeats it). */
  availability(): Promise<SandboxAvailability> {
    this.probe ??= this.check();
    return this.probe;
  }

  async run(spec: SandboxRunSpec): Promise<ProgramOutcome> {
    const available = await this.availability();
    if (!available.ok) throw new SandboxUnavailableError(available.reason);
    await this.handOver(spec.workingCopy);
    let proxy: EgressProxy | undefined;
    const allow = spec.network?.allow ?? [];
    if (allow.length > 0) proxy = await startEgressProxy(await this.supportDir(), allow, this.hostUid, this.outbound);
    try {
      const inner = 'argv' in spec.command ? [...spec.command.argv] : ['/bin/bash', '-c', spec.command.script];
      const argv = await this.commandLine(spec, inner, proxy);
      const outcome = await runProgram(argv, {
        cwd: '/',
        env: { PATH: SANDBOX_PATH },
        limits: { timeoutMs: spec.limits.timeoutMs, maxStdoutBytes: spec.limits.maxStdoutBytes, maxStderrBytes: spec.limits.maxStderrBytes },
        signal: spec.signal,
      });
      // prlimit execs the command: one it cannot find is a program that could not start.
      const missing = outcome.exitCode === 127 ? /^prlimit: failed to execute (.*): No such file or directory\n?$/.exec(outcome.stderr.text) : null;
      return missing ? { ...outcome, stderr: { text: '', bytes: 0, truncated: false }, startError: `"${missing[1]}" was not found on the sandbox's PATH` } : outcome;
    } finally {
      await proxy?.close();
    }
  }

  private async check(): Promise<SandboxAvailability> {
    try {
      const bwrap = await findProgram(this.bwrap);
      if (!bwrap) return { ok: false, reason: `bubblewrap was not found at "${this.bwrap}" (install it: apt-get install bubblewrap, or set ZERO_BWRAP to its path)` };
      for (const tool of [...(this.hostUid === undefined ? [] : [SETPRIV]), PRLIMIT]) {
        if (!(await findProgram(tool))) return { ok: false, reason: `${tool} (util-linux) was not found; the sandbox needs it to set its limits` };
      }
      const folder = join(await this.supportDir(), 'probe');
      await mkdir(folder, { recursive: true });
      await this.handOver(folder);
      const argv = await this.commandLine({ workingCopy: folder, limits: PROBE_LIMITS }, ['/bin/sh', '-c', 'test -d /workspace && ! test -e /work && echo ok']);
      const outcome = await runProgram(argv, { cwd: '/', env: { PATH: SANDBOX_PATH }, limits: { timeoutMs: 10_000, maxStdoutBytes: 4096, maxStderrBytes: 4096 } });
      if (outcome.startError) return { ok: false, reason: `bubblewrap could not start: ${outcome.startError}` };
      if (outcome.exitCode !== 0 || outcome.stdout.text.trim() !== 'ok') {
        const why = (outcome.stderr.text || outcome.stdout.text).trim().split('\n')[0] || `exit code ${outcome.exitCode}`;
        return { ok: false, reason: `bubblewrap could not create a sandbox here (${why}); user namespaces may be disabled, or the container forbids them` };
      }
      return { ok: true, detail: `bubblewrap (${this.bwrap})${this.hostUid !== undefined ? `, as host user ${this.hostUid}` : ''}` };
    } catch (error) {
      return { ok: false, reason: `the sandbox could not be prepared: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** The argv that runs `inner` in a sandbox over the spec's working copy. */
  private async commandLine(spec: Pick<SandboxRunSpec, 'workingCopy' | 'cwd' | 'env' | 'limits' | 'packagesDir'>, inner: string[], proxy?: EgressProxy): Promise<[string, ...string[]]> {
    const support = await this.supportDir();
    const args: string[] = ['--unshare-all', '--unshare-user', '--disable-userns', '--uid', String(INSIDE_ID), '--gid', String(INSIDE_ID), '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'sandbox'];
    args.push('--ro-bind', '/usr', '/usr');
    for (const folder of HIDDEN_UNDER_USR) {
      if ((await lstat(folder).catch(() => undefined))?.isDirectory()) args.push('--size', '4096', '--tmpfs', folder, '--remount-ro', folder);
    }
    for (const top of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
      const info = await lstat(`/${top}`).catch(() => undefined);
      if (info?.isSymbolicLink()) args.push('--symlink', await readlink(`/${top}`), `/${top}`);
      else if (info?.isDirectory()) args.push('--ro-bind', `/${top}`, `/${top}`);
    }
    args.push('--dir', '/etc');
    for (const name of SYSTEM_ETC) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
    for (const name of Object.keys(SYNTHETIC_ETC)) args.push('--ro-bind', join(support, 'etc', name), `/etc/${name}`);
    args.push('--proc', '/proc', '--dev', '/dev');
    args.push('--size', String(spec.limits.diskBytes), '--tmpfs', '/tmp');
    args.push('--bind', spec.workingCopy, SANDBOX_WORKSPACE);
    let path = SANDBOX_PATH;
    const installed: Record<string, string> = {};
    if (spec.packagesDir) {
      args.push('--ro-bind', spec.packagesDir, PACKAGES_MOUNT);
      const prefix = prefixEnvironment();
      path = [...prefix.path, SANDBOX_PATH].join(':');
      Object.assign(installed, prefix.env);
    }
    const cwd = spec.cwd ? normalize(join(SANDBOX_WORKSPACE, spec.cwd)) : SANDBOX_WORKSPACE;
    args.push('--chdir', cwd);
    args.push('--clearenv');
    const env: Record<string, string> = { ...(spec.env ?? {}), ...installed, PATH: path, HOME: SANDBOX_WORKSPACE, LANG: 'C.UTF-8' };
    const { limits } = spec;
    const prlimit = [PRLIMIT, `--as=${limits.memoryBytes}`, `--nproc=${limits.processes}`, `--fsize=${limits.diskBytes}`, `--cpu=${limits.cpuSeconds}`, '--core=0', '--'];
    let command = [...prlimit, ...inner];
    if (proxy) {
      args.push('--ro-bind', proxy.socketPath, '/run/egress.sock', '--ro-bind', join(support, 'relay.cjs'), '/run/relay.cjs');
      const url = `http://127.0.0.1:${RELAY_PORT}`;
      Object.assign(env, { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: '', no_proxy: '' });
      // The relay listens on the sandbox's own loopback and hands each connection to the proxy's socket.
      // It runs beside the command, outside the command's limits (node needs more address space than a command may get).
      const wait = 'i=0; until [ -e /tmp/.relay-ready ]; do i=$((i+1)); if [ $i -gt 1000 ]; then echo "the sandbox\'s network relay did not start" >&2; exit 125; fi; sleep 0.01; done';
      command = ['/bin/sh', '-c', `/usr/bin/node /run/relay.cjs /run/egress.sock ${RELAY_PORT} & ${wait}; exec "$@"`, 'sh', ...command];
    }
    for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
    const bwrap: [string, ...string[]] = [this.bwrap, ...args, '--', ...command];
    return this.hostUid === undefined ? bwrap : [SETPRIV, `--reuid=${this.hostUid}`, `--regid=${this.hostUid}`, '--clear-groups', '--no-new-privs', ...bwrap];
  }

  /** A private folder of files every sandbox mounts read-only (the synthetic /etc, the relay). */
  private supportDir(): Promise<string> {
    this.support ??= (async () => {
      const dir = await mkdtemp(join(tmpdir(), 'zero-sandbox-'));
      await mkdir(join(dir, 'etc'));
      for (const [name, body] of Object.entries(SYNTHETIC_ETC)) await writeFile(join(dir, 'etc', name), body, { mode: 0o644 });
      await writeFile(join(dir, 'relay.cjs'), RELAY_SCRIPT, { mode: 0o644 });
      // The sandbox's user must read them; nothing in here is secret.
      await chmod(dir, 0o755);
      await chmod(join(dir, 'etc'), 0o755);
      return dir;
    })();
    return this.support;
  }

  /** Gives the working copy to the sandbox's host user (when the server is root), once per copy. */
  private async handOver(copy: string): Promise<void> {
    if (this.hostUid === undefined || this.owned.has(copy)) return;
    const info = await stat(copy);
    if (info.uid !== this.hostUid) await chownTree(copy, this.hostUid);
    // Copies live an hour; a long-running server forgets old ones rather than grow (a forgotten one is only checked again).
    if (this.owned.size > 10_000) this.owned.clear();
    this.owned.add(copy);
  }
}

const RELAY_PORT = 3128;
const PRLIMIT = '/usr/bin/prlimit';
const SETPRIV = '/usr/bin/setpriv';

/** The executable `name` is (a path, or looked up on the server's PATH), or undefined. */
async function findProgram(name: string): Promise<string | undefined> {
  const candidates = name.includes('/') ? [name] : `${process.env.PATH ?? ''}:${SANDBOX_PATH}`.split(':').filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}
const PROBE_LIMITS = { timeoutMs: 10_000, memoryBytes: 1024 ** 3, processes: 16, diskBytes: 1024 * 1024, cpuSeconds: 5, maxStdoutBytes: 4096, maxStderrBytes: 4096 };

/** lchown of a tree, never following a link. */
async function chownTree(path: string, uid: number): Promise<void> {
  await lchown(path, uid, uid);
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), uid);
}
