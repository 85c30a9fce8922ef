import { relative } from 'node:path';
import { createSandbox } from '../../environments/create-sandbox';
import { DEFAULT_SANDBOX_LIMITS, SandboxUnavailableError, type Sandbox, type SandboxCommand, type SandboxLimits } from '../../environments/sandbox';
import { normalizeProjectFolder } from '../../projects/paths';
import type { RunEnvironment } from '../../environments/run-environment';
import type { PackagePrefixes } from '../../environments/local/package-prefix';
import type { EnvironmentRecord, PackagesStatus } from '../../store/items/environment';
import { log } from '@zero/agent/log/log';
import { inProject, toolError } from '../project-scope';
import type { ToolContext, ToolOutput } from '../tool';
import type { CommandOptions } from './command-policy';
import type { CopyExtra, ScratchCopies } from './scratch';
import type { SkillVersion } from '../../skills/skill-store';
import type { CappedStream, ProgramOutcome } from '../../environments/spawn';

/** What the model is shown of each stream (the registry caps the whole result as well). */
const SHOWN_STDOUT_CHARS = 30_000;
const SHOWN_STDERR_CHARS = 8_000;
/** Time to copy the project (and mount the session's repositories) before the command's own clock starts. */
export const COPY_ALLOWANCE_MS = 60_000;
/** Time an environment's first command may spend installing its packages (each package manager stops at 5 minutes). */
const INSTALL_ALLOWANCE_MS = 15 * 60_000;
/** The longest time limit an environment may set (`limits.timeout_seconds`). */
const MAX_ENVIRONMENT_TIMEOUT_MS = 3600 * 1000;
/**
 * How long the registry lets a call of run_command or bash take before it gives up on it: past
 * any environment's time limit, its copy and its install. The sandbox enforces the command's own
 * limit; this is only the backstop.
 */
export const COMMAND_CALL_TIMEOUT_MS = MAX_ENVIRONMENT_TIMEOUT_MS + COPY_ALLOWANCE_MS + INSTALL_ALLOWANCE_MS;

/**
 * Runs commands of one tool (run_command, bash) in the deployment's sandbox over the run's
 * scratch copy of the project. A copy is shared by one run's calls of both tools; a sandbox that
 * cannot run (bubblewrap missing, namespaces refused) refuses every command: nothing ever runs
 * in the server's own process.
 */
export class SandboxedCommands {
  private copies?: ScratchCopies;
  private prefixes?: PackagePrefixes;
  private made?: Sandbox;
  readonly limits: SandboxLimits;

  constructor(private readonly options: CommandOptions) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.environment?.limits, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  }

  /** The deployment's sandbox, made on first use (a tool list built at cold start runs nothing). */
  sandbox(): Sandbox {
    this.made ??= this.options.sandbox ?? createSandbox(this.options.sandboxOptions);
    return this.made;
  }

  async run(call: { command: SandboxCommand; cwd?: string; projectId?: string; audit: string[] }, context: ToolContext): Promise<ToolOutput> {
    const sandbox = this.sandbox();
    const available = await sandbox.availability();
    if (!available.ok) return refusal(available.reason);
    const { runEnvironment } = await import('../../environments/run-environment');
    let settings: RunEnvironment;
    try {
      settings = await runEnvironment(context, context.sessionId);
    } catch (error) {
      return { content: `Nothing ran: ${(error as Error).message}.`, is_error: true };
    }
    const prepared = await this.prepare(settings.environment, sandbox, context);
    if ('refused' in prepared) return { content: prepared.refused, is_error: true };
    const { ScratchCopies, commandFolder } = await import('./scratch');
    this.copies ??= new ScratchCopies(this.options.scratchRoot);
    const copies = this.copies;
    const { skills } = context.agent.skills?.length ? await (await import('../../skills/session-skills')).sessionSkills(context, context.sessionId, context.agent) : { skills: [] };
    const extra = joinExtras(resourcesOf(settings.resources, context), await skillsOf(skills, context));
    const body = async (projectId: string | undefined) => {
      const copy = await copies.copyFor(context.projectFiles, projectId, context.runId, context.signal, extra);
      const folder = await commandFolder(copy, call.cwd === undefined ? undefined : normalizeProjectFolder(call.cwd) || undefined);
      const where = relative(copy, folder);
      const startedAt = new Date().toISOString();
      const { limits, network, packagesDir } = prepared;
      let outcome: ProgramOutcome;
      try {
        outcome = await sandbox.run({ command: call.command, workingCopy: copy, cwd: where, env: toolCaches(sandbox), limits, network, packagesDir, signal: context.signal });
      } catch (error) {
        if (SandboxUnavailableError.isInstance(error)) return refusal(error.message);
        throw error;
      }
      await context.recordCommand?.({
        tool_use_id: context.toolCallId,
        project_id: projectId ?? '',
        started_at: startedAt,
        cwd: where || '.',
        argv: call.audit,
        exit_code: outcome.exitCode,
        ...(outcome.signal ? { signal: outcome.signal } : {}),
        ...(outcome.timedOut ? { timed_out: true } : {}),
        duration_ms: outcome.durationMs,
      });
      const described = describeOutcome(outcome, where || '.', limits);
      return { content: prepared.installed ? `${prepared.installed}\n${described}` : described, is_error: outcome.startError !== undefined || outcome.timedOut };
    };
    // A session whose repositories (or skills) are its working copy needs no project; one without any runs in its project's copy.
    if (call.projectId ?? context.projectId ?? (!settings.resources.length && !skills.length)) return inProject(call.projectId, context, body);
    try {
      return await body(undefined);
    } catch (error) {
      return toolError(error);
    }
  }

  /**
   * The sandbox settings of the session's environment as it is now: its limits over the
   * deployment's, its network allowlist beside the deployment's, its packages installed (once per
   * environment and package list). A refusal names what cannot be had, and nothing runs.
   */
  private async prepare(environment: EnvironmentRecord, sandbox: Sandbox, context: ToolContext): Promise<{ limits: SandboxLimits; network: { allow: string[] }; packagesDir?: string; installed?: string } | { refused: string }> {
    const { sandboxLimitsOf, networkAllowOf } = await import('../../environments/run-environment');
    const limits = { ...this.limits, ...sandboxLimitsOf(environment.limits) };
    const network = { allow: [...(this.options.environment?.network?.allow ?? []), ...networkAllowOf(environment.network)] };
    const { apt, npm, pip, ...others } = environment.packages;
    const unsupported = Object.entries(others).filter(([, names]) => names.length).map(([manager]) => manager);
    const named = `The environment "${environment.name}" (${environment.id})`;
    if (unsupported.length) return { refused: `${named} lists ${unsupported.join(', ')} packages, which Zero does not install yet (it installs apt, npm and pip packages). Nothing ran.` };
    if (!apt.length && !npm.length && !pip.length) return { limits, network };
    if (sandbox.kind !== 'local') return { refused: `${named} lists packages, which Zero installs for the local kind of sandbox only so far; this server runs commands in the ${sandbox.kind} kind. Nothing ran.` };
    const { PackagePrefixes, PackageInstallError, packagesHash } = await import('../../environments/local/package-prefix');
    this.prefixes ??= new PackagePrefixes(this.options.packagesRoot);
    try {
      const packages = { apt, npm, pip };
      const hash = packagesHash(packages);
      // The environment shows how its install went (GET /api/v2/environments/:id): a failure is said there as well as here.
      const report = async (state: PackagesStatus['state'], error?: string) => {
        await context.environments?.setPackagesStatus(environment.id, { state, packages_hash: hash, error: error ?? null, at: new Date().toISOString() }).catch((failure: unknown) => log.warn('environment_status_failed', { environment_id: environment.id, error: String(failure) }));
      };
      const prefix = await this.prefixes.prefixFor(environment.id, packages, report);
      return { limits, network, packagesDir: prefix.dir, ...(prefix.installedNow ? { installed: `[installed the environment's packages once, for every command of ${environment.id}: ${prefix.summary}]` } : {}) };
    } catch (error) {
      if (!PackageInstallError.isInstance(error)) throw error;
      return { refused: `${named} could not install its packages: ${error.message}. Nothing ran; fix the environment's packages (PATCH /api/v2/environments/${environment.id}) and run the command again.` };
    }
  }
}

/** The session's repositories and files, written into a run's copy while it is built (see `mountResources`, `mountFiles`). */
function resourcesOf(resources: RunEnvironment['resources'], context: ToolContext): CopyExtra | undefined {
  if (!resources.length) return undefined;
  const repositories = resources.filter((r) => r.type === 'github_repository');
  const files = resources.filter((r) => r.type === 'file');
  return {
    key: resources.map((r) => r.id).join(','),
    write: async (dir) => {
      if (repositories.length && !context.mountRepositories) throw new Error('this deployment cannot mount repository resources');
      if (repositories.length) await context.mountRepositories!(dir, repositories);
      if (files.length) await (await import('../../files/mount-files')).mountFiles(dir, files, context.artifacts);
    },
  };
}

/**
 * The run's skills, written into its copy at `.skills/<name>/` while it is built: their scripts run
 * there. Paths were checked on upload (no "..", no absolute path), and each is joined under its
 * skill's folder and checked again, so a stored path cannot lead out of the copy.
 */
async function skillsOf(skills: readonly SkillVersion[], context: ToolContext): Promise<CopyExtra | undefined> {
  if (!skills.length) return undefined;
  const { SKILLS_FOLDER } = await import('../../skills/skills-folder');
  const { skillStore } = await import('../../skills/skill-store');
  const store = skillStore(context.artifacts);
  return {
    key: skills.map((s) => `${s.skill_id}@${s.id}`).join(','),
    write: async (dir) => {
      const { mkdir, writeFile } = await import('node:fs/promises');
      const { dirname, join, relative, isAbsolute } = await import('node:path');
      for (const skill of skills) {
        const root = join(dir, SKILLS_FOLDER, skill.name);
        for (const file of await store.readFiles(skill)) {
          const target = join(root, file.path);
          const inside = relative(root, target);
          if (!inside || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`skill "${skill.name}" holds a path outside its folder: ${file.path}`);
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, file.bytes);
        }
      }
    },
  };
}

/** Both extras in one copy, in turn: the repositories, then the skills. */
function joinExtras(...extras: (CopyExtra | undefined)[]): CopyExtra | undefined {
  const present = extras.filter((e): e is CopyExtra => !!e);
  if (present.length <= 1) return present[0];
  return {
    key: present.map((e) => e.key).join('|'),
    write: async (dir) => {
      for (const extra of present) await extra.write(dir);
    },
  };
}

const shared = new WeakMap<CommandOptions, SandboxedCommands>();

/** The commands of one deployment's settings: run_command and bash given the same options share a sandbox and the run's copy. */
export function commandsFor(options: CommandOptions): SandboxedCommands {
  let commands = shared.get(options);
  if (!commands) shared.set(options, (commands = new SandboxedCommands(options)));
  return commands;
}

/**
 * Where a command's tools keep their caches and logs. HOME is the working copy, so npm would write
 * `.npm/` (its cache, `_logs`, the update notifier's stamp) into the project's copy; in the `local`
 * kind they go to the sandbox's own /tmp instead, which dies with the command. (The `lambda` kind's
 * handler names its own temporary folder; its copy is what comes back, and keeps npm's default.)
 */
function toolCaches(sandbox: Sandbox): Record<string, string> | undefined {
  if (sandbox.kind !== 'local') return undefined;
  return { npm_config_cache: '/tmp/.npm', npm_config_update_notifier: 'false', XDG_CACHE_HOME: '/tmp/.cache' };
}

function refusal(reason: string): ToolOutput {
  return { content: `Commands are refused on this server: ${reason}. Nothing ran (commands only ever run inside a sandbox).`, is_error: true };
}

/** The result the model reads: how the command ended, then each stream (cut, and said so, when long). */
function describeOutcome(outcome: ProgramOutcome, cwd: string, limits: SandboxLimits): string {
  if (outcome.startError) return `The program could not start: ${outcome.startError}.`;
  const ending = outcome.timedOut
    ? `timed out after ${limits.timeoutMs} ms; its sandbox and every process in it were killed`
    : outcome.exitCode === null
      ? `ended by signal ${outcome.signal}`
      : `exit code ${outcome.exitCode}`;
  const lines = [`${ending} · ${outcome.durationMs} ms · cwd ${cwd}`];
  lines.push(...stream('stdout', outcome.stdout, limits.maxStdoutBytes, SHOWN_STDOUT_CHARS));
  lines.push(...stream('stderr', outcome.stderr, limits.maxStderrBytes, SHOWN_STDERR_CHARS));
  return lines.join('\n');
}

function stream(name: string, captured: CappedStream, capBytes: number, shownChars: number): string[] {
  if (captured.bytes === 0) return [`[${name}: empty]`];
  const notes: string[] = [];
  let text = captured.text;
  if (text.length > shownChars) {
    // Head and tail: a build or test run says what went wrong at the end.
    const head = Math.floor(shownChars * 0.75);
    const tail = shownChars - head;
    notes.push(`[${name}: showing the first ${head} and last ${tail} of ${text.length} characters]`);
    text = `${text.slice(0, head)}\n[…]\n${text.slice(-tail)}`;
  }
  if (captured.truncated) notes.push(`[${name} truncated: the command wrote ${captured.bytes} bytes; only the first ${capBytes} were kept]`);
  return [`--- ${name} ---`, text.endsWith('\n') ? text.slice(0, -1) : text, ...notes];
}
