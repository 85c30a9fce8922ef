// Bundles the CLI into dist/ with esbuild: one file per lazily loaded command, every dependency
// inside except tsx (the embedded local stack is TypeScript loaded through it, on demand) and
// @napi-rs/keyring (a native addon: its binary for this platform is resolved from node_modules).
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cli = dirname(fileURLToPath(import.meta.url));

/** Builds into a fresh folder and swaps it in, so CLIs starting at the same moment never see half a bundle. */
export async function buildCli() {
  const dist = join(cli, 'dist');
  const staging = join(cli, `.dist-${randomBytes(4).toString('hex')}`);
  await build({
    entryPoints: { zero: join(cli, 'src', 'main.ts') },
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    external: ['tsx', 'tsx/*', '@napi-rs/keyring'],
    logLevel: 'warning',
    // Bundled CommonJS packages may call require() for Node's built-ins.
    banner: { js: "import { createRequire as __zeroRequire } from 'node:module'; const require = __zeroRequire(import.meta.url);" },
  });
  await mkdir(dist, { recursive: true });
  // Chunks first, the entry last: a CLI starting meanwhile loads either the old entry or a complete new one.
  const names = (await readdir(staging)).sort((a, b) => Number(a === 'zero.mjs') - Number(b === 'zero.mjs'));
  for (const name of names) await rename(join(staging, name), join(dist, name));
  await rm(staging, { recursive: true, force: true });
  // Chunks of earlier builds go once no CLI started before this build can still be loading them.
  const kept = new Set(names);
  for (const name of await readdir(dist)) {
    const path = join(dist, name);
    if (!kept.has(name) && Date.now() - (await stat(path)).mtimeMs > 60_000) await rm(path, { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli();
