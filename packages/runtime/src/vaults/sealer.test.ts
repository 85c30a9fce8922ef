import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalKeyWrapper, Sealer } from './sealer';

describe('vault secrets sealed with the local key file', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'zero-sealer-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const context = { zero_vault: 'vlt_a', zero_credential: 'vcrd_a' };

  it('makes the key file on first use, readable by its owner only, and opens what it sealed on the same credential only', async () => {
    const file = join(dir, 'data', 'vault.key');
    const sealer = new Sealer(new LocalKeyWrapper(file));
    const sealed = await sealer.seal('sk_live_secret', context);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(sealed).toMatchObject({ v: 1, kek: 'local', key_id: expect.stringMatching(/^file:[0-9a-f]{16}$/) });
    expect(JSON.stringify(sealed)).not.toContain('sk_live_secret');
    expect(await new Sealer(new LocalKeyWrapper(file)).open(sealed, context)).toBe('sk_live_secret');
    // Moved onto another credential, or altered, it does not open.
    await expect(sealer.open(sealed, { ...context, zero_credential: 'vcrd_b' })).rejects.toThrow();
    const flipped = Buffer.from(sealed.data, 'base64');
    flipped[0]! ^= 1;
    await expect(sealer.open({ ...sealed, data: flipped.toString('base64') }, context)).rejects.toThrow();
  });

  it('refuses a secret sealed with another key file, naming both files, and tightens a key file others may read', async () => {
    const other = join(dir, 'other.key');
    await writeFile(other, `${randomBytes(32).toString('base64')}\n`, { mode: 0o644 });
    const sealed = await new Sealer(new LocalKeyWrapper(join(dir, 'first.key'))).seal('value', context);
    const error = (await new Sealer(new LocalKeyWrapper(other)).open(sealed, context).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^the secret was sealed with another key file \(file:[0-9a-f]{16}\), not .*other\.key \(file:[0-9a-f]{16}\)$/);
    expect((await stat(other)).mode & 0o777).toBe(0o600);
    const short = join(dir, 'short.key');
    await writeFile(short, 'c2hvcnQ=\n', { mode: 0o600 });
    await expect(new Sealer(new LocalKeyWrapper(short)).seal('x', context)).rejects.toThrow(/does not hold 32 base64 bytes/);
    expect((await readFile(short, 'utf8')).trim()).toBe('c2hvcnQ=');
  });
});
