import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RuntimeConfig } from '../../functions/create-runtime';

const script = join(import.meta.dirname, 'child-server.ts');

/** Starts a Zero server in a child process and resolves with its URL. */
export async function startChildServer(
  config: Partial<RuntimeConfig>,
  options: { failpoint?: { after: string; signal: 'SIGKILL' | 'SIGSTOP' } } = {},
): Promise<{ url: string; process: ChildProcess; kill(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      ZERO_CHILD_CONFIG: JSON.stringify(config),
      ...(options.failpoint ? { ZERO_CHILD_FAILPOINT: JSON.stringify(options.failpoint) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`child server exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    process: child,
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
        // A frozen (SIGSTOPped) process dies of SIGKILL as well; nothing more to do.
      }),
  };
}
