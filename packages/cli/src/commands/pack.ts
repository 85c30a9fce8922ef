import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import ignore, { type Ignore } from 'ignore';
import { pack } from 'tar-stream';

/** A folder's files as a project upload would take them: `.git` left out, each `.gitignore` respected. */
export async function listProjectFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string, rules: { base: string; ig: Ignore }[]) => {
    const here = [...rules];
    const gitignore = await readFile(join(dir, '.gitignore'), 'utf8').catch(() => undefined);
    if (gitignore !== undefined) here.push({ base: dir, ig: ignore().add(gitignore) });
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const path = join(dir, entry.name);
      const ignored = here.some(({ base, ig }) => {
        const rel = relative(base, path).split(sep).join('/');
        return ig.ignores(entry.isDirectory() ? `${rel}/` : rel);
      });
      if (ignored) continue;
      if (entry.isDirectory()) await walk(path, here);
      else if (entry.isFile()) files.push(relative(root, path).split(sep).join('/'));
    }
  };
  await walk(root, []);
  return files;
}

/** Packs the files into a `.tar.gz` in memory, calling `progress` after each file. */
export async function packTarGz(root: string, files: string[], progress?: (done: number, bytes: number) => void): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  let bytes = 0;
  for (const [i, file] of files.entries()) {
    const path = join(root, file);
    const [body, info] = await Promise.all([readFile(path), stat(path)]);
    bytes += body.length;
    await new Promise<void>((resolve, reject) => archive.entry({ name: file, mode: info.mode & 0o777, mtime: info.mtime }, body, (error) => (error ? reject(error) : resolve())));
    progress?.(i + 1, bytes);
  }
  archive.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}
