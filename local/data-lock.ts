import { readFileSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { defineErrorClass } from '@zero/agent/errors';

/** The data folder belongs to another running Zero: dynalite cannot open its database twice. */
export class DataDirInUseError extends defineErrorClass('DataDirInUseError') {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the data folder ${dir} is in use by another running Zero (process ${pid})`);
  }
}

/**
 * Claims `dir` for this process with a lock file holding its pid and its start time, created
 * exclusively. A lock whose holder no longer runs is taken over: a process that ended (killed,
 * crashed), one that ended but was never reaped (a zombie, as orphans stay in a container without an
 * init), or another process that got the pid since (its start time differs). Resolves with the
 * function that releases it.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = join(dir, 'zero.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid} ${processStat(process.pid)?.started ?? ''}`.trim() + '\n');
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      // "<pid> <start time>"; a lock from an earlier version holds the pid alone.
      const [pid, started] = (await readFile(file, 'utf8').catch(() => '')).trim().split(/\s+/);
      const holder = Number.parseInt(pid ?? '', 10);
      if (holder > 0 && holder !== process.pid && holds(holder, started)) throw new DataDirInUseError(dir, holder);
      await rm(file, { force: true });
    }
  }
}

/** Whether process `pid`, which took the lock at `started` (when recorded), still runs. */
function holds(pid: number, started: string | undefined): boolean {
  if (!isRunning(pid)) return false;
  const stat = processStat(pid);
  // Without /proc (macOS), a signal reaching the pid is all there is to go on.
  if (!stat) return !hasProc();
  // Z: ended, not yet reaped by its parent; X: being removed.
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return !started || stat.started === started;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's state letter and start time (clock ticks after boot) from /proc/<pid>/stat; undefined without one. */
function processStat(pid: number): { state: string; started: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses; the fields after it do not.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', started: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

function hasProc(): boolean {
  return processStat(process.pid) !== undefined;
}
