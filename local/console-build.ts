import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
/** Where `npm run build:console` writes the console. */
export const CONSOLE_DIST = join(root, 'console', 'dist');
/** What the console's bundle is made from: its sources, its page and build configuration, and the parts of core it imports. */
const SOURCES = ['console/src', 'console/index.html', 'console/vite.config.ts', 'packages/agent/src/wire', 'packages/agent/src/ui', 'packages/agent/src/plan', 'package-lock.json'].map((p) => join(root, p));

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

/** Whether `console/dist` (or `dist`) is missing, or older than a file it is built from. */
export function consoleIsStale(dist = CONSOLE_DIST, sources: readonly string[] = SOURCES): boolean {
  const built = join(dist, 'index.html');
  return !existsSync(built) || statSync(built).mtimeMs < Math.max(...sources.map(newest));
}

/**
 * Builds the console when it is stale (as `npm run build:console` does), one process at a time: another
 * process that finds it stale meanwhile waits for that build and then finds it fresh. Throws with the
 * build's output when it fails.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  if (!consoleIsStale()) return;
  const lock = join(root, 'console', '.build-lock');
  const until = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than any build is left by a killed process.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > until) throw new Error(`another process has been building the console for 3 minutes (${lock}); remove the folder if it is stale`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (!consoleIsStale()) return;
    // vite's package exports no path to its command; it lies beside the entry point the package exports.
    const vite = join(dirname(createRequire(import.meta.url).resolve('vite')), '..', '..', 'bin', 'vite.js');
    execFileSync(process.execPath, [vite, 'build', '--config', join(root, 'console', 'vite.config.ts')], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    const output = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`the console could not be built: ${output.stderr?.toString() || output.stdout?.toString() || String(error)}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
