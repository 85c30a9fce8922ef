import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PathError } from '../../projects/paths';
import { mapLimit } from '../../projects/project-store';
import type { ProjectFileCache } from '../../projects/file-cache';

/** Scratch copies older than this are removed when a new one is made (a run lasts minutes, not hours). */
const SCRATCH_MAX_AGE_MS = 60 * 60_000;

/** Files added to a copy while it is built (see `copyFor`). */
export interface CopyExtra {
  key: string;
  write: (dir: string) => Promise<void>;
}

/**
 * Per-run copies of a project's files under `/tmp`, made from the project file
 * cache: commands read and change their copy, never the cache, the bucket or
 * Zero's own folder. One run's calls share its copy; two runs never do.
 */
export class ScratchCopies {
  private readonly pending = new Map<string, Promise<string>>();

  constructor(readonly root = join(tmpdir(), 'zero-commands')) {}

  /**
   * The run's copy of the project (made on first use), as a real path with no symlinks in it;
   * without a project, an empty working copy of the run's own (for a session's repositories).
   * `extra` adds files (a session's repositories) while the copy is built, before any command
   * has seen it, so nothing a command left there (a symbolic link) can lead them astray; its
   * `key` is part of the copy's identity.
   */
  async copyFor(cache: ProjectFileCache, projectId: string | undefined, runId: string, signal?: AbortSignal, extra?: CopyExtra): Promise<string> {
    const id = createHash('sha256').update(`${projectId ?? ''}\0${runId}\0${extra?.key ?? ''}`).digest('hex').slice(0, 32);
    let copy = this.pending.get(id);
    if (!copy) {
      copy = this.make(cache, projectId, id, signal, extra).finally(() => this.pending.delete(id));
      this.pending.set(id, copy);
    }
    return copy;
  }

  private async make(cache: ProjectFileCache, projectId: string | undefined, id: string, signal?: AbortSignal, extra?: CopyExtra): Promise<string> {
    await mkdir(this.root, { recursive: true });
    // Others may pass through to a copy (a sandbox runs as another user) but never list the copies.
    await chmod(this.root, 0o711).catch(() => undefined);
    const dir = join(await realpath(this.root), id);
    if (await exists(dir)) return dir;
    await this.sweep();
    const snapshot = projectId ? await cache.materialize(projectId, () => true, signal) : { files: [], read: async () => Buffer.alloc(0) };
    // Built aside and renamed into place, so a copy that exists is whole.
    const building = `${dir}.${process.pid}.partial`;
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true, mode: 0o700 });
    // Listed paths passed the project normaliser: no "..", no absolute path, no backslash.
    await mapLimit(snapshot.files, 16, async (file) => {
      const target = join(building, file.path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, await snapshot.read(file.path));
    });
    try {
      await extra?.write(building);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      throw error;
    }
    await rename(building, dir).catch(async (error) => {
      await rm(building, { recursive: true, force: true });
      if (!(await exists(dir))) throw error;
    });
    return dir;
  }

  /** Removes copies of runs long over; a copy in use is at most a run's length old. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const name of await readdir(this.root).catch(() => [])) {
      const path = join(this.root, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > SCRATCH_MAX_AGE_MS) await rm(path, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Whether `path` is `root` or inside it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/**
 * The folder a command runs in: `cwd` (relative to the copy's root, normalised
 * like every project path) inside the copy, which must exist.
 */
export async function commandFolder(copy: string, cwd: string | undefined): Promise<string> {
  const folder = cwd ? resolve(copy, cwd) : copy;
  await requireInside(copy, folder, cwd ?? '.');
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new PathError(`cwd "${cwd}" is not a folder of the project`);
  return folder;
}

async function requireInside(copy: string, path: string, arg: string): Promise<void> {
  if (!within(copy, path)) throw new PathError(`"${arg}" resolves outside the project copy the command runs in; use paths inside it, e.g. "src/index.ts"`);
  const real = await realOf(path);
  if (!within(copy, real)) throw new PathError(`"${arg}" leads outside the project copy through a symbolic link`);
}

/** The real path of `path`, or of its deepest existing ancestor with the rest appended. */
async function realOf(path: string): Promise<string> {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest.push(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      existing = parent;
    }
  }
}
