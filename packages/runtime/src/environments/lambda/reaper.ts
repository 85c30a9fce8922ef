import { readdirSync, readFileSync } from 'node:fs';

/**
 * Ends every process a command left behind, including one that left the command's process group
 * (`setsid`, a double fork): without it, such a process is frozen with the execution environment
 * and runs again during the next invocation, which may be another user's, reading and changing
 * that user's working copy.
 *
 * Made when the sandbox function's module loads, it records the pids present then (the runtime's
 * own: Lambda's init, its extensions, this process); `reap()` SIGKILLs every other pid in /proc
 * and returns once none of them is running. A process present at load that is more confined than
 * this one (more seccomp filters, or no_new_privs where this has none: a command under
 * sandbox-exec) is not the runtime's: it is a command that outlived a runtime it killed, and it is
 * reaped like any other stray, never adopted. This is sound only where the whole process table is
 * the function's alone — a Lambda execution environment, or a pid namespace of its own — so the
 * function makes one only when `ZERO_SANDBOX_REAP=1` (set by sst.config.ts on the sandbox
 * function, never on a shared machine).
 */
export class StrayProcessReaper {
  private readonly own: ReadonlySet<number>;

  constructor(private readonly proc = '/proc') {
    const self = this.confinement(process.pid);
    this.own = new Set([...this.pids().filter((pid) => !this.moreConfined(this.confinement(pid), self)), process.pid]);
  }

  /** Kills every process not present at load; resolves when none is left running. Returns how many it killed. */
  async reap(): Promise<number> {
    const killed = new Set<number>();
    const unkillable = new Set<number>();
    for (;;) {
      // A stray may fork between a scan and its kill: scan again until a scan finds none running.
      const strays = this.pids().filter((pid) => !this.own.has(pid) && !unkillable.has(pid) && this.running(pid));
      if (strays.length === 0) return killed.size;
      for (const pid of strays) {
        try {
          process.kill(pid, 'SIGKILL');
          killed.add(pid);
        } catch (error) {
          // ESRCH: already gone. EPERM: another user's (none in Lambda, where everything runs as one user).
          if ((error as NodeJS.ErrnoException).code === 'EPERM') unkillable.add(pid);
        }
      }
      // SIGKILL takes effect when the process next leaves the kernel: yield until it has.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  private pids(): number[] {
    return readdirSync(this.proc).filter((name) => /^\d+$/.test(name)).map(Number);
  }

  /** A process's seccomp filter count and no_new_privs, from /proc/<pid>/status (undefined where unreadable). */
  private confinement(pid: number): { filters?: number; noNewPrivs?: boolean } | undefined {
    try {
      const status = readFileSync(`${this.proc}/${pid}/status`, 'utf8');
      const field = (name: string) => status.match(new RegExp(`^${name}:\\s*(\\d+)`, 'm'))?.[1];
      const filters = field('Seccomp_filters');
      const noNewPrivs = field('NoNewPrivs');
      return { filters: filters === undefined ? undefined : Number(filters), noNewPrivs: noNewPrivs === undefined ? undefined : noNewPrivs === '1' };
    } catch {
      return undefined;
    }
  }

  private moreConfined(other: ReturnType<StrayProcessReaper['confinement']>, self: ReturnType<StrayProcessReaper['confinement']>): boolean {
    if (!other || !self) return false;
    if (other.filters !== undefined && self.filters !== undefined && other.filters > self.filters) return true;
    return other.noNewPrivs === true && self.noNewPrivs === false;
  }

  /** False for a process that is gone or has already died (a zombie waiting for its parent). */
  private running(pid: number): boolean {
    try {
      const stat = readFileSync(`${this.proc}/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
}

/** The reaper the sandbox function uses: one when `ZERO_SANDBOX_REAP` is `1` (its process table is its own), else none. */
export function strayReaperFromEnv(env: NodeJS.ProcessEnv = process.env): StrayProcessReaper | undefined {
  return env.ZERO_SANDBOX_REAP === '1' ? new StrayProcessReaper() : undefined;
}
