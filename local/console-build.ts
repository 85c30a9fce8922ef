import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** What the console is built from: its own folder (not its output) and the wire schemas it imports. */
export const CONSOLE_SOURCES = [join(root, 'console'), join(root, 'packages', 'core', 'src', 'wire'), join(root, 'package-lock.json')];

/** The newest modification time under `path` (a file or a folder), leaving out `dist` and `node_modules`. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'dist' || entry === 'node_modules') continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

/** True when `dist` holds no console, or one older than any of its sources. */
export function consoleIsStale(dist: string, sources: readonly string[] = CONSOLE_SOURCES): boolean {
  const built = join(dist, 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return sources.some((source) => newest(source) > builtAt);
}

/** `vite build` of the console into console/dist, as `npm run build:console` does; throws with vite's output when it fails. */
export function buildConsole(): void {
  const vite = join(createRequire(import.meta.url).resolve('vite/package.json'), '..', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', join(root, 'console', 'vite.config.ts')], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the console could not be built: ${(result.stderr || result.stdout).trim()}`);
}
