#!/usr/bin/env node
// The `zero` command. It runs the CLI bundled by esbuild (packages/cli/dist), which starts in a
// fraction of the time tsx needs to compile the sources; the bundle is rebuilt here whenever a
// source file is newer than it, so a checkout never runs stale code and needs no build step.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(cli, '..', '..');
const entry = join(cli, 'dist', 'zero.mjs');
const sources = [join(cli, 'src'), join(root, 'packages', 'client', 'src'), join(root, 'packages', 'core', 'src', 'wire'), join(root, 'packages', 'core', 'src', 'plan'), join(root, 'packages', 'core', 'src', 'errors.ts'), join(cli, 'package.json')];

function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

if (!existsSync(entry) || newest(entry) < Math.max(...sources.map(newest))) {
  const { buildCli } = await import('../build.mjs');
  await buildCli();
}
await import(pathToFileURL(entry).href);
