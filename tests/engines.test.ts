import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/**
 * SST's workflow SDK (`sst/aws/workflow`): it declares Node 22, and Zero never loads it; `@sparticuz/chromium`
 * (a devDependency) declares Node 22 too, and the tests only unpack its Chromium archives, never run its
 * JavaScript (docs/getting-started.md says both).
 */
const UNUSED_BY_ZERO = new Set(['node_modules/@aws/durable-execution-sdk-js', 'node_modules/@sparticuz/chromium']);

describe('the Node version Zero asks for', () => {
  const minimum = semver.minVersion(JSON.parse(read('package.json')).engines.node)!;

  it('is the one the README names', () => {
    expect(read('README.md')).toContain(`Node ${minimum.major}.${minimum.minor} or newer`);
  });

  it('is accepted by every package npm ci installs (no EBADENGINE but the one docs/getting-started.md explains)', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { optional?: boolean; engines?: { node?: unknown } }> };
    const refusing = Object.entries(lock.packages)
      // npm skips an optional package its engines rule out, silently.
      .filter(([path, info]) => path !== '' && !info.optional && typeof info.engines?.node === 'string')
      .filter(([, info]) => !semver.satisfies(minimum, info.engines!.node as string))
      .map(([path, info]) => `${path} (node ${info.engines!.node})`);
    expect(refusing.filter((entry) => !UNUSED_BY_ZERO.has(entry.split(' ')[0]!))).toEqual([]);
  });
});
