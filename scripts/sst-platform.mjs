#!/usr/bin/env node
// Generates SST's platform (.sst/platform: component sources, Pulumi providers
// and the types sst.config.ts is checked against) with `sst install`, using the
// bun binary from node_modules so nothing is downloaded but npm packages.
// Skips the work when the platform already matches the installed sst version.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const sstVersion = JSON.parse(readFileSync(join(modules, 'sst', 'package.json'), 'utf8')).version;
const platform = join(root, '.sst', 'platform');

function installed() {
  const versionFile = join(platform, 'version');
  return (
    existsSync(versionFile) &&
    readFileSync(versionFile, 'utf8').trim() === sstVersion &&
    existsSync(join(platform, 'node_modules', '@pulumi', 'aws', 'package.json'))
  );
}

/** bun's postinstall moves the binary into bun/bin; without it, the platform package still holds it. */
function bunPath() {
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x64';
  const candidates = [join(modules, 'bun', 'bin', 'bun.exe'), join(modules, '@oven', `bun-${process.platform}-${arch}`, 'bin', 'bun')];
  // The placeholder bun.exe is a few bytes; the real binary is tens of megabytes.
  const found = candidates.find((path) => existsSync(path) && statSync(path).size > 1_000_000);
  if (!found) throw new Error(`no bun binary in node_modules (looked at ${candidates.join(', ')})`);
  return found;
}

if (installed() && !process.argv.includes('--force')) process.exit(0);

const result = spawnSync(process.execPath, [join(modules, 'sst', 'bin', 'sst.mjs'), 'install'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    SST_BUN_PATH: bunPath(),
    SST_SKIP_DEPENDENCY_CHECK: '1',
    SST_TELEMETRY_DISABLED: '1',
    // `sst install` refuses to run without a stage; the platform does not depend on it.
    SST_STAGE: process.env.SST_STAGE || 'ci',
  },
});
if (result.status !== 0 || !installed()) {
  console.error('sst install did not produce .sst/platform');
  process.exit(result.status || 1);
}
