// @ts-check
/**
 * Merges the chunks a bundled function's entry imports statically into one file, after esbuild has
 * split the bundle at its `import()`s. esbuild emits a chunk per set of entry points that share
 * modules, so the API's cold start read about a hundred small files; it loads every one of them
 * before the first request anyway, so one file holds them now, and the code behind `import()` stays
 * in chunks loaded on first use. Evaluation order is kept (rollup links the same modules in the
 * same order); nothing is tree-shaken or rewritten beyond names.
 *
 * A chunk a worker thread loads by its URL (grep's scan, packages/runtime/src/tools/grep-scan.mjs) must
 * not import the merged file: the thread would evaluate the whole init. What such chunks import
 * statically goes into a small chunk of its own, which the init file imports too.
 *
 * Run by sst.config.ts after SST's build (`hook.postbuild`), and by bench/bundle-function.ts, so the
 * bench measures the bundle Zero deploys. `bench/bundle.ts` measures what it saves.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { rollup } from 'rollup';

const builtins = new Set(builtinModules);

/** Chunks loaded on their own by URL, in a worker thread, by the name esbuild gives them (their module's). */
export const STANDALONE_CHUNKS = [/^grep-scan-[A-Z0-9]+\.mjs$/];

/** A bare specifier (a package) or a Node builtin: left as esbuild left it. */
const external = (/** @type {string} */ id) => id.startsWith('node:') || builtins.has(id) || !(id.startsWith('.') || id.startsWith('/'));

/**
 * Merges `entry`'s static imports (esbuild's chunks) into `init-<hash>.mjs`, in the chunks' directory,
 * and rewrites the entry and the lazily loaded chunks to import from it. Files the bundle's module graph
 * does not reach (assets, fonts) are left where they are. Returns the number of files a cold start
 * loads before and after.
 *
 * @param {string} entry the bundle's entry file, e.g. `<out>/functions/api.mjs`
 * @param {{ standalone?: RegExp[] }} [options] chunks a worker loads by URL (default STANDALONE_CHUNKS)
 * @returns {Promise<{ before: number; after: number }>}
 */
export async function mergeInitChunks(entry, options = {}) {
  entry = resolve(entry);
  const dir = dirname(entry);
  const standalone = options.standalone ?? STANDALONE_CHUNKS;
  /** @type {Set<string> | undefined} */
  let atInit;
  /** @type {Set<string>} */
  const workerShared = new Set();
  /** @type {string[]} */
  const problems = [];
  const bundle = await rollup({
    input: entry,
    external,
    treeshake: false,
    onwarn: (warning) => {
      // esbuild's output has already been linked: a circular chunk import, an empty chunk or an import esbuild left unused is expected; what else rollup says is not.
      if (!['CIRCULAR_DEPENDENCY', 'EMPTY_BUNDLE', 'THIS_IS_UNDEFINED', 'UNUSED_EXTERNAL_IMPORT'].includes(warning.code ?? '')) problems.push(`${warning.code}: ${warning.message}`);
    },
  });
  const modules = bundle.watchFiles;
  // Chunks go where esbuild put them (SST's build: beside the entry; the bench's: `chunks/`), so that
  // `import.meta.url` and `createRequire` in them resolve as they did.
  const chunkDir = modules.map((id) => relative(dir, dirname(id))).find((at) => at !== '' && !at.startsWith('..')) ?? '';
  const out = join(dir, `.merging-${randomBytes(4).toString('hex')}`);
  try {
    await bundle.write({
      dir: out,
      format: 'es',
      entryFileNames: '[name].mjs',
      chunkFileNames: chunkDir ? `${chunkDir}/[name]-[hash].mjs` : '[name]-[hash].mjs',
      manualChunks: (id, { getModuleInfo, getModuleIds }) => {
        if (!atInit) {
          const closure = (/** @type {string[]} */ from) => {
            const seen = new Set();
            const visit = (/** @type {string} */ at) => {
              if (seen.has(at)) return;
              seen.add(at);
              for (const next of getModuleInfo(at)?.importedIds ?? []) if (!external(next)) visit(next);
            };
            for (const at of from) visit(at);
            return seen;
          };
          atInit = closure([entry]);
          atInit.delete(entry);
          const workers = [...getModuleIds()].filter((at) => standalone.some((name) => name.test(basename(at))));
          for (const at of closure(workers)) if (!workers.includes(at)) workerShared.add(at);
        }
        return workerShared.has(id) ? 'shared' : atInit.has(id) ? 'init' : undefined;
      },
    });
    if (problems.length) throw new Error(`merging the chunks of ${entry} failed:\n${problems.join('\n')}`);
    const written = await filesUnder(out);
    // Rollup's files are moved in first (the entry over itself), then the files it read and did not write are deleted; anything else stays.
    for (const file of written) {
      const target = join(dir, relative(out, file));
      await mkdir(dirname(target), { recursive: true });
      await rename(file, target);
    }
    const kept = new Set(written.map((file) => join(dir, relative(out, file))));
    await Promise.all(modules.filter((id) => id.startsWith(dir) && !kept.has(id) && existsSync(id)).map((id) => rm(id)));
    const merged = new Set([...(atInit ?? [])].map((id) => (workerShared.has(id) ? 'shared' : 'init')));
    return { before: (atInit?.size ?? 0) + 1, after: merged.size + 1 };
  } finally {
    await bundle.close();
    await rm(out, { recursive: true, force: true });
  }
}

/** @param {string} dir @returns {Promise<string[]>} */
async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
