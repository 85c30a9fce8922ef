import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The house's layers (issue 31) are enforced by the compiler: a package's tsconfig references only the
 * packages below it, and `tsc -b` refuses a file that imports one it does not reference (TS6307: the
 * file is not in the project, nor in one it references). These build a small probe project that stands
 * where a package would, referencing packages/agent only, as packages/runtime's own tsconfig does, with
 * its `paths`.
 */
const root = join(import.meta.dirname, '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

async function build(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [tsc, '-b', dir], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

/** packages/runtime's own `paths` (every @zero package found by path, so an unreferenced one is refused), made absolute for the probe. */
function runtimePaths(): Record<string, string[]> {
  const config = JSON.parse(readFileSync(join(root, 'packages', 'runtime', 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  return Object.fromEntries(Object.entries(config.compilerOptions.paths).map(([k, v]) => [k, v.map((p) => resolve(root, 'packages', 'runtime', p))]));
}

function probe(importLine: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'zero-house-'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(root, 'tsconfig.base.json'),
      compilerOptions: { composite: true, noEmit: false, emitDeclarationOnly: true, rootDir: '.', outDir: 'out', types: ['node'], typeRoots: [join(root, 'node_modules', '@types')], paths: runtimePaths() },
      include: ['probe.ts'],
      references: [{ path: join(root, 'packages', 'agent') }],
    }),
  );
  writeFileSync(join(dir, 'probe.ts'), `${importLine}\nexport const probe = value;\n`);
  return dir;
}

describe('the layers, as tsc -b builds them', () => {
  const dirs: string[] = [];
  beforeAll(() => {
    dirs.push(probe(`import { ZeroError as value } from '@zero/agent/errors';`));
    dirs.push(probe(`import { RECORD_VERSION as value } from '@zero/runtime/store/items/log-record';`));
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('each package references only the packages below it', () => {
    const references = (name: string) =>
      ((JSON.parse(readFileSync(join(root, 'packages', name, 'tsconfig.json'), 'utf8')) as { references?: { path: string }[] }).references ?? []).map((r) => r.path);
    expect(references('agent')).toEqual([]);
    expect(references('runtime')).toEqual(['../agent']);
    expect(references('integrations')).toEqual(['../agent', '../runtime']);
  });

  it('an import of a referenced package (one below) builds', async () => {
    const { code, output } = await build(dirs[0]!);
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 180_000);

  it('an import that runs up (a package not referenced) is refused: tsc -b fails and names the file', async () => {
    const { code, output } = await build(dirs[1]!);
    expect(code).not.toBe(0);
    expect(output).toContain('error TS6307');
    expect(output).toContain(join('packages', 'runtime', 'src', 'store', 'items', 'log-record.ts'));
  }, 180_000);
});
