import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { defineErrorClass } from '@zero/core';

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
 * Claims `dir` for this process with a lock file holding its pid, created
 * exclusively. A lock left by a process that no longer runs (killed, crashed)
 * is taken over. Resolves with the function that releases it.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = join(dir, 'zero.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const pid = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (pid > 0 && pid !== process.pid && isRunning(pid)) throw new DataDirInUseError(dir, pid);
      await rm(file, { force: true });
    }
  }
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
