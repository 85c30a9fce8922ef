import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** What Tab completes from: the REPL's commands, and the paths an `@` mention may name. */
export interface CompletionSources {
  commands: readonly string[];
  /** Paths of the project the session is bound to (read from the server once), if any. */
  projectPaths?: () => Promise<readonly string[]>;
  cwd?: string;
}

/** How many candidates one Tab lists at most. */
const MAX_HITS = 200;

/**
 * readline's completer: Tab after `/` at the start of the input completes a command; Tab in a
 * word that starts with `@` completes a path, of the files under the working directory (what an
 * `@file` mention attaches) and of the session's project. Never throws: a path that cannot be
 * listed completes nothing.
 */
export function replCompleter(sources: CompletionSources) {
  // readline/promises awaits what the completer returns.
  return (line: string): Promise<[string[], string]> => complete(line, sources).catch(() => [[], line]);
}

export async function complete(line: string, sources: CompletionSources): Promise<[string[], string]> {
  if (/^\/\S*$/.test(line)) return [sources.commands.filter((c) => c.startsWith(line)), line];
  const word = /(?:^|\s)(@\S*)$/.exec(line)?.[1];
  if (!word) return [[], line];
  const partial = word.slice(1);
  const [local, project] = await Promise.all([localPaths(partial, sources.cwd ?? process.cwd()), sources.projectPaths ? projectPaths(partial, await sources.projectPaths().catch(() => [])) : []]);
  const hits = [...new Set([...local, ...project])].sort().slice(0, MAX_HITS);
  return [hits.map((p) => `@${p}`), word];
}

/** Entries of the folder `partial` points into whose names start with its last segment; folders end with `/`. */
async function localPaths(partial: string, cwd: string): Promise<string[]> {
  const folder = partial.endsWith('/') ? partial : dirname(partial) === '.' ? '' : `${dirname(partial)}/`;
  const start = partial.slice(folder.length);
  const entries = await readdir(resolve(cwd, folder || '.'), { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.name.startsWith(start) && (start.startsWith('.') || !e.name.startsWith('.')) && e.name !== 'node_modules')
    .map((e) => join(folder, e.name) + (e.isDirectory() ? '/' : ''));
}

/** The project's paths under `partial`, one folder level at a time (as a shell completes). */
function projectPaths(partial: string, paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(partial)) continue;
    const slash = path.indexOf('/', partial.lastIndexOf('/') + 1);
    out.add(slash === -1 ? path : path.slice(0, slash + 1));
  }
  return [...out];
}
