import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { consoleIsStale } from '../local/console-build';

describe("the browser tests' console bundle", () => {
  it('is stale when missing or older than any of its sources, fresh once built after them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-console-build-'));
    const dist = join(dir, 'dist');
    const src = join(dir, 'src');
    mkdirSync(join(src, 'deep'), { recursive: true });
    const source = join(src, 'deep', 'chat-view.tsx');
    writeFileSync(source, 'export {};\n');
    const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);
    at(source, 1_000);
    at(join(src, 'deep'), 1_000);
    at(src, 1_000);
    expect(consoleIsStale(dist, [src])).toBe(true);

    mkdirSync(dist);
    writeFileSync(join(dist, 'index.html'), '<!doctype html>');
    at(join(dist, 'index.html'), 2_000);
    expect(consoleIsStale(dist, [src])).toBe(false);

    // A source edited after the build, however deep.
    at(source, 3_000);
    expect(consoleIsStale(dist, [src])).toBe(true);
  });
});

describe("the console's stylesheet", () => {
  it('parses without a warning: every rule is closed, so no rule after one swallows the rest', async () => {
    const css = readFileSync(join(import.meta.dirname, '../console/src/styles.css'), 'utf8');
    const { warnings } = await transform(css, { loader: 'css' });
    expect(warnings.map((w) => `${w.location?.line}: ${w.text}`)).toEqual([]);
  });
});
