import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineErrorClass } from '@zero/agent/errors';
import { runProgram } from '../spawn';
import { packagesHash, type PrefixPackages } from '../packages-hash';

export { packagesHash, type PrefixPackages };

/** Where an environment's prefix appears inside a sandbox (read-only). */
export { PACKAGES_MOUNT, prefixEnvironment } from './packages-mount';

/** An environment's installed packages: the folder to mount, and whether this call did the install. */
export interface InstalledPrefix {
  dir: string;
  /** True for the call that installed it (the first command after a change of packages); false when it was already there. */
  installedNow: boolean;
  /** What was installed, for the one command that installed it. */
  summary: string;
}

/** An install failed: the message names the package manager and what it said. */
export class PackageInstallError extends defineErrorClass('PackageInstallError') {}

/** How long one package manager may take; past it the install fails (and says so) rather than hang a command. */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
/**
 * The server's variables a package manager is given: how this machine reaches registries (its
 * proxy, its certificate authorities, the registries and indexes it uses), nothing else.
 */
const MANAGER_SETTINGS = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'PIP_CERT', 'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'npm_config_registry', 'NPM_CONFIG_REGISTRY'];
/** What a failed install shows of the package manager's output. */
const SHOWN_OUTPUT_CHARS = 1_500;

/**
 * Installs an environment's packages once, into a prefix folder of its own under `root`, which
 * every sandbox of the environment then mounts read-only: npm with `npm install --prefix`, apt
 * with `apt-get download` and `dpkg-deb -x` (no maintainer script runs), pip with
 * `pip install --target` of wheels only (no setup.py runs). No package's own code runs on the host:
 * npm installs with `--ignore-scripts`. Each manager runs with a clean environment (of the server's
 * variables only how this machine reaches registries: proxy, certificate authorities, registry and
 * index addresses) and a time limit.
 *
 * The folder is named by the environment and a hash of its package lists, so a change of packages
 * installs afresh and a change of anything else reuses it. Concurrent commands of one environment
 * wait for the same install (never two at once in a process); a prefix is built aside and renamed
 * into place, so a folder that exists is whole, even across processes sharing `root`.
 */
export class PackagePrefixes {
  private readonly pending = new Map<string, Promise<InstalledPrefix>>();

  constructor(readonly root = join(tmpdir(), 'zero-environments')) {}

  /**
   * The environment's prefix, installed on first use; rejects with PackageInstallError naming the
   * manager that failed. `report` hears how an install it starts goes (`installing`, then `ready` or
   * `failed` with the error); it is not called when the prefix is there already. Must not throw.
   */
  prefixFor(environmentId: string, packages: PrefixPackages, report?: (state: 'installing' | 'ready' | 'failed', error?: string) => Promise<void>): Promise<InstalledPrefix> {
    const key = `${environmentId.replace(/[^A-Za-z0-9_-]/g, '_')}-${packagesHash(packages)}`;
    const waiting = this.pending.get(key);
    // A command that finds the install under way waits for it; only the one that started it reports it.
    if (waiting) return waiting.then((prefix) => ({ ...prefix, installedNow: false }));
    // Not tied to the command that started it: the install is the environment's, and others wait on it.
    const install = this.install(key, packages, report).finally(() => this.pending.delete(key));
    this.pending.set(key, install);
    return install;
  }

  private async install(key: string, packages: PrefixPackages, report?: (state: 'installing' | 'ready' | 'failed', error?: string) => Promise<void>): Promise<InstalledPrefix> {
    const dir = join(this.root, key);
    if (await exists(dir)) return { dir, installedNow: false, summary: '' };
    await report?.('installing');
    await mkdir(this.root, { recursive: true });
    // The sandbox's user (another host user when the server is root) reads the prefix; nothing in it is secret.
    await chmod(this.root, 0o755).catch(() => undefined);
    const building = join(this.root, `.${key}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
    await mkdir(building, { recursive: true });
    const started = Date.now();
    try {
      if (packages.npm.length) await installNpm(building, packages.npm);
      if (packages.apt.length) await installApt(building, packages.apt);
      if (packages.pip.length) await installPip(building, packages.pip);
      await writeFile(join(building, 'installed.json'), `${JSON.stringify({ packages, installed_at: new Date().toISOString() })}\n`);
      await openTree(building);
      await rename(building, dir).catch(async (error) => {
        // Another process renamed its own build into place first: that one is used.
        if (!(await exists(dir))) throw error;
      });
    } catch (error) {
      await report?.('failed', (error as Error).message);
      throw error;
    } finally {
      await rm(building, { recursive: true, force: true });
    }
    await report?.('ready');
    const lists = (['npm', 'apt', 'pip'] as const).filter((m) => packages[m].length).map((m) => `${m}: ${packages[m].join(' ')}`);
    return { dir, installedNow: true, summary: `${lists.join('; ')} (${Math.round((Date.now() - started) / 100) / 10} s)` };
  }
}

/** Runs one package manager in `cwd` with a clean environment (MANAGER_SETTINGS only); throws PackageInstallError naming it when it fails. */
async function runManager(manager: string, argv: [string, ...string[]], cwd: string, env: Record<string, string> = {}, explain?: (output: string) => string | undefined): Promise<string> {
  const home = join(cwd, '.home');
  await mkdir(home, { recursive: true });
  const outcome = await runProgram(argv, {
    cwd,
    env: { ...managerSettings(), PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', HOME: home, LANG: 'C.UTF-8', ...env },
    limits: { timeoutMs: INSTALL_TIMEOUT_MS, maxStdoutBytes: 256 * 1024, maxStderrBytes: 256 * 1024 },
  });
  await rm(home, { recursive: true, force: true });
  if (outcome.startError) throw new PackageInstallError(`${manager} could not start: ${outcome.startError}`);
  if (outcome.timedOut) throw new PackageInstallError(`${manager} did not finish within ${INSTALL_TIMEOUT_MS / 1000} s and was stopped`);
  if (outcome.exitCode !== 0) {
    const explained = explain?.(`${outcome.stdout.text}\n${outcome.stderr.text}`);
    if (explained) throw new PackageInstallError(explained);
    const said = (outcome.stderr.text.trim() || outcome.stdout.text.trim() || `exit code ${outcome.exitCode}`).slice(-SHOWN_OUTPUT_CHARS);
    throw new PackageInstallError(`${manager} failed (exit code ${outcome.exitCode ?? outcome.signal}): ${said}`);
  }
  return outcome.stdout.text;
}

/** `name`, `@scope/name`, each with an optional version or range after `@` (no `file:`, `git:`, `npm:` alias, URL or path). */
const NPM_REGISTRY_SPEC = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*(@[A-Za-z0-9.^~<>=*+_-]+)?$/i;

function managerSettings(): Record<string, string> {
  return Object.fromEntries(MANAGER_SETTINGS.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
}

async function installNpm(prefix: string, names: readonly string[]): Promise<void> {
  const dir = join(prefix, 'npm');
  await mkdir(dir);
  // A name that is a path, URL or git spec would copy host files or reach hosts past the guard: registry packages only.
  const odd = names.find((name) => !NPM_REGISTRY_SPEC.test(name));
  if (odd) throw new PackageInstallError(`npm: "${odd}" is not a registry package name; environments install packages from the npm registry only`);
  await runManager('npm', ['npm', 'install', '--prefix', dir, '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--loglevel=error', '--', ...names], prefix, {
    npm_config_cache: join(prefix, '.npm-cache'),
    npm_config_update_notifier: 'false',
    // One retry and a minute per request: an unreachable registry is an error soon, not a long wait.
    npm_config_fetch_retries: '1',
    npm_config_fetch_timeout: '60000',
  });
  await rm(join(prefix, '.npm-cache'), { recursive: true, force: true });
}

async function installApt(prefix: string, names: readonly string[]): Promise<void> {
  const downloads = join(prefix, '.debs');
  await mkdir(downloads);
  await runManager('apt', ['apt-get', 'download', '-q', '--', ...names], downloads);
  const target = join(prefix, 'apt');
  await mkdir(target);
  for (const deb of (await readdir(downloads)).filter((name) => name.endsWith('.deb'))) {
    await runManager('apt (dpkg-deb)', ['dpkg-deb', '-x', join(downloads, deb), target], prefix);
  }
  await rm(downloads, { recursive: true, force: true });
}

async function installPip(prefix: string, names: readonly string[]): Promise<void> {
  // A URL, path or direct reference (`name @ url`) would reach hosts past the guard or copy host files: index packages only.
  const odd = names.find((name) => /[:/@]/.test(name));
  if (odd) throw new PackageInstallError(`pip: "${odd}" is not a package name with an optional version; environments install packages from the package index only`);
  const target = join(prefix, 'pip');
  // -vv: pip says it could not reach its index only in its verbose log ("Could not fetch URL … connection error").
  const argv: [string, ...string[]] = ['/usr/bin/python3', '-m', 'pip', 'install', '-vv', '--target', target, '--only-binary=:all:', '--no-input', '--disable-pip-version-check', '--retries', '0', '--timeout', '15', '--', ...names];
  await runManager('pip', argv, prefix, { PIP_NO_CACHE_DIR: '1' }, (output) => {
    const unreachable = /Could not fetch URL (\S+): connection error[^\n]*?(Name or service not known|Temporary failure in name resolution|Connection refused|timed out|Network is unreachable|Failed to establish a new connection)/.exec(output);
    if (unreachable) return `pip could not reach its package index (${unreachable[1]}: ${unreachable[2]}), so ${names.join(', ')} could not be installed; this server needs PyPI, or PIP_INDEX_URL naming an index it reaches`;
    const missing = /ERROR: (No matching distribution found for [^\n]+)/.exec(output);
    return missing ? `pip failed: ${missing[1]} (pip installs wheels only)` : undefined;
  });
}

/** Folders 0755 and files readable by all: the sandbox's user may be another host user. */
async function openTree(path: string): Promise<void> {
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  await chmod(path, 0o755);
  for (const entry of entries) {
    if (entry.isSymbolicLink()) continue;
    const full = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(full, 0o755);
    else await chmod(full, ((await stat(full)).mode & 0o111) ? 0o755 : 0o644);
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
