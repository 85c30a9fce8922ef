import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';

/**
 * Envelope encryption of vault secrets. Each sealed value has its own random 256-bit data key; the
 * value is encrypted with it (AES-256-GCM), and the data key is wrapped by the deployment's key
 * (KMS on AWS, a key file locally) and kept beside it. `context` (the vault and credential ids) is
 * the GCM additional data and KMS's encryption context: a sealed value copied onto another
 * credential does not open.
 */

/** A sealed value as stored. Holds no plaintext; every field is base64. */
export const sealedSchema = z.object({
  v: z.literal(1),
  /** Which kind of key wrapped the data key, and which key: `kms` with the key's id or ARN, `local` with the key file's fingerprint. */
  kek: z.enum(['kms', 'local']),
  key_id: z.string(),
  wrapped_key: z.string(),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
});
export type Sealed = z.infer<typeof sealedSchema>;

/** Wraps and unwraps data keys with the deployment's key. */
export interface KeyWrapper {
  readonly kind: Sealed['kek'];
  wrap(dataKey: Buffer, context: Record<string, string>): Promise<{ keyId: string; wrapped: Buffer }>;
  unwrap(wrapped: Buffer, keyId: string, context: Record<string, string>): Promise<Buffer>;
}

/** Seals and opens vault secrets (see the file comment). */
export class Sealer {
  constructor(private readonly wrapper: KeyWrapper) {}

  async seal(plaintext: string, context: Record<string, string>): Promise<Sealed> {
    const dataKey = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
    cipher.setAAD(Buffer.from(aad(context)));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const { keyId, wrapped } = await this.wrapper.wrap(dataKey, context);
    dataKey.fill(0);
    return { v: 1, kek: this.wrapper.kind, key_id: keyId, wrapped_key: wrapped.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  /** The plaintext; throws when the value was sealed for another context or by a key this deployment does not have. */
  async open(sealed: Sealed, context: Record<string, string>): Promise<string> {
    if (sealed.kek !== this.wrapper.kind) throw new Error(`the secret was sealed with a ${sealed.kek} key and this deployment has a ${this.wrapper.kind} key`);
    const dataKey = await this.wrapper.unwrap(Buffer.from(sealed.wrapped_key, 'base64'), sealed.key_id, context);
    try {
      const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(aad(context)));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }
}

/** The context as GCM's additional data: its entries in key order. */
function aad(context: Record<string, string>): string {
  return JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The local key: 32 random bytes in a file only its owner may read (0600), made on first use
 * (`npm start`: `<data folder>/vault.key`). Data keys are wrapped with it by AES-256-GCM. Losing the
 * file loses every secret sealed with it; a file others may read is refused.
 */
export class LocalKeyWrapper implements KeyWrapper {
  readonly kind = 'local' as const;
  private key?: Promise<{ key: Buffer; id: string }>;

  constructor(private readonly file: string) {}

  async wrap(dataKey: Buffer, context: Record<string, string>) {
    const { key, id } = await this.load();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad(context)));
    const wrapped = Buffer.concat([iv, cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
    return { keyId: id, wrapped };
  }

  async unwrap(wrapped: Buffer, keyId: string, context: Record<string, string>) {
    const { key, id } = await this.load();
    if (keyId !== id) throw new Error(`the secret was sealed with another key file (${keyId}), not ${this.file} (${id})`);
    const decipher = createDecipheriv('aes-256-gcm', key, wrapped.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad(context)));
    decipher.setAuthTag(wrapped.subarray(wrapped.length - 16));
    return Buffer.concat([decipher.update(wrapped.subarray(12, wrapped.length - 16)), decipher.final()]);
  }

  private load() {
    this.key ??= readOrCreateKey(this.file).catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }
}

async function readOrCreateKey(file: string): Promise<{ key: Buffer; id: string }> {
  await mkdir(dirname(file), { recursive: true });
  try {
    // `wx`: of two processes starting at once, one makes the file and the other reads it.
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = (await stat(file)).mode & 0o777;
  if (mode & 0o077) {
    // A file made by hand with the usual umask: tightened rather than refused when we own it.
    await chmod(file, 0o600).catch(() => {
      throw new Error(`the vault key file ${file} may be read by others (mode ${mode.toString(8)}): make it 0600`);
    });
  }
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (key.length !== 32) throw new Error(`the vault key file ${file} does not hold 32 base64 bytes`);
  return { key, id: `file:${createHash('sha256').update(key).digest('hex').slice(0, 16)}` };
}
