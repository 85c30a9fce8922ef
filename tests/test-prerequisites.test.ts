import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', 'scripts', 'test-prerequisites.mjs');

/** `npm test`'s first step, on a machine whose PATH holds only `node` (no tmux, poppler, bubblewrap, apt-get or sudo): Chromium, PostgreSQL and the terminal come from the devDependencies. */
/** The lambda sandbox's native pieces need a C compiler (and, off arm64, an arm64 cross compiler): names of what a bare machine lacks. */
const compilers = [
  'gcc',
  ...(existsSync('/usr/include/stdio.h') ? [] : ['libc6-dev']),
  ...(process.arch === 'arm64' ? [] : ['gcc-aarch64-linux-gnu', ...(existsSync('/usr/aarch64-linux-gnu/include/stdio.h') ? [] : ['libc6-dev-arm64-cross'])]),
].join(' ');

describe("npm test's system prerequisites", () => {
  const bare = mkdtempSync(join(tmpdir(), 'zero-bare-path-'));
  symlinkSync(process.execPath, join(bare, 'node'));
  afterAll(() => rmSync(bare, { recursive: true, force: true }));

  it('stop at once with one line that names the missing packages and the command that installs them, where nothing can install them', () => {
    const result = spawnSync(process.execPath, [script], { env: { PATH: bare }, encoding: 'utf8' });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`npm test needs Debian packages that are not installed and cannot be installed from here: run \`sudo apt-get update && sudo apt-get install -y --no-install-recommends bubblewrap gnome-keyring dbus-daemon dbus-bin ${compilers}\`, then npm test again.`);
  });

  it("take Chromium, PostgreSQL and a pseudo-terminal from the devDependencies, so only what npm cannot ship is asked of Debian", () => {
    // ZERO_TEST_NPM_BINARIES=1: Debian's Chromium, PostgreSQL and tmux count as absent, as on a machine without them.
    const result = spawnSync(process.execPath, [script], { env: { PATH: bare, ZERO_TEST_NPM_BINARIES: '1' }, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`install -y --no-install-recommends bubblewrap gnome-keyring dbus-daemon dbus-bin ${compilers}\``);
    const full = spawnSync(process.execPath, [script], { env: { PATH: process.env.PATH!, ZERO_TEST_NPM_BINARIES: '1' }, encoding: 'utf8' });
    expect({ status: full.status, stderr: full.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('pass silently where everything is installed (this machine, which the suite runs on)', () => {
    const result = spawnSync(process.execPath, [script], { env: { PATH: process.env.PATH! }, encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
