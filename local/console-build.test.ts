import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleIsStale } from './console-build';

describe('consoleIsStale: npm start rebuilds the console only when its sources changed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zero-console-build-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const src = join(dir, 'console', 'src');
  const dist = join(dir, 'console', 'dist');
  mkdirSync(src, { recursive: true });
  const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

  it('is stale without a build, fresh after one, stale again once a source is edited (the output folder itself never counts)', () => {
    writeFileSync(join(src, 'app.tsx'), 'one');
    at(join(src, 'app.tsx'), 1_000);
    expect(consoleIsStale(dist, [join(dir, 'console')])).toBe(true);
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<html>');
    at(join(dist, 'index.html'), 2_000);
    expect(consoleIsStale(dist, [join(dir, 'console')])).toBe(false);
    writeFileSync(join(dist, 'extra.js'), 'built later');
    at(join(dist, 'extra.js'), 5_000);
    expect(consoleIsStale(dist, [join(dir, 'console')])).toBe(false);
    at(join(src, 'app.tsx'), 3_000);
    expect(consoleIsStale(dist, [join(dir, 'console')])).toBe(true);
  });
});
