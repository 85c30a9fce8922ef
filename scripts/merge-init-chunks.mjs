// @ts-check
/**
 * Merges the chunks a bundled function's entry imports statically into one file, after esbuild has
 * split the bundle at its `import()`s. esbuild emits a chunk per set of entry points that share
 * modules, so the API's cold start read about a hundred small files; it loads every one of them
 * before the first request anyway, so one file holds them now, and the code behind `import()` stays
 * in chunks loaded on first use. Evaluation order is kept (rollup links the same modules in the
 * same order); nothing is tree-shaken or rewritten beyond names.
 *
 * Run by sst.config.ts after SST's build (`hook.postbuild`), and by bench/bundle-function.ts, so the
 * bench measures the bundle Zero deploys. `bench/bundle.ts` measures what it saves.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { rollup } from 'rollup';

const builtins = new Set(builtinModules);

/** A bare specifier (a package) or a Node builtin: left as esbuild left it. */
const external = (/** @type {string} */ id) => id.startsWith('node:') || builtins.has(id) || !(id.startsWith('.') || id.startsWith('/'));

/**
 * Merges `entry`'s static imports (esbuild's chunks beside it, under `chunks/`) into `chunks/init-<hash>.mjs`
 * and rewrites the entry and the lazily loaded chunks to import from it. Files the bundle's module graph
 * does not reach (assets, fonts) are left where they are. Returns the number of files a cold start
 * loads before and after.
 *
 * @param {string} entry the bundle's entry file, e.g. `<out>/functions/api.mjs`
 * @returns {Promise<{ before: number; after: number }>}
 */
export async function mergeInitChunks(entry) {
  entry = resolve(entry);
  const dir = dirname(entry);
  /** @type {Set<string> | undefined} */
  let atInit;
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
  const out = join(dir, `.merging-${randomBytes(4).toString('hex')}`);
  try {
    await bundle.write({
      dir: out,
      format: 'es',
      entryFileNames: '[name].mjs',
      chunkFileNames: 'chunks/[name]-[hash].mjs',
      manualChunks: (id, { getModuleInfo }) => {
        if (!atInit) {
          atInit = new Set();
          const visit = (/** @type {string} */ at) => {
            if (atInit?.has(at)) return;
            atInit?.add(at);
            for (const next of getModuleInfo(at)?.importedIds ?? []) if (!external(next)) visit(next);
          };
          visit(entry);
          atInit.delete(entry);
        }
        return atInit.has(id) ? 'init' : undefined;
      },
    });
    await bundle.close();
    if (problems.length) throw new Error(`merging the chunks of ${entry} failed:\n${problems.join('\n')}`);
    const before = (atInit?.size ?? 0) + 1;
    // The files rollup read are replaced by the ones it wrote; anything else in the directory stays.
    await Promise.all(modules.filter((id) => id.startsWith(dir) && existsSync(id)).map((id) => rm(id)));
    for (const file of await filesUnder(out)) {
      const target = join(dir, relative(out, file));
      await mkdir(dirname(target), { recursive: true });
      await rename(file, target);
    }
    return { before, after: atInit?.size ? 2 : 1 };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** @param {string} dir @returns {Promise<string[]>} */
async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
