import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KmsKeyWrapper } from './kms';
import { Sealer } from './sealer';

const credentials = { accessKeyId: 'AKIAFAKEKMS000000001', secretAccessKey: 'fake/kms+secret0123456789', sessionToken: 'fake-session-token' };

/** What the AWS SDK's own signer makes of the same request: the reference a signature must equal. */
async function referenceAuthorization(headers: Record<string, string>, body: string, url: URL, region: string) {
  const signer = new SignatureV4({ credentials, region, service: 'kms', sha256: Sha256, applyChecksum: false });
  const amzDate = headers['x-amz-date']!;
  const when = new Date(Date.UTC(+amzDate.slice(0, 4), +amzDate.slice(4, 6) - 1, +amzDate.slice(6, 8), +amzDate.slice(9, 11), +amzDate.slice(11, 13), +amzDate.slice(13, 15)));
  const { authorization: _a, ...unsigned } = headers;
  const signed = await signer.sign({ method: 'POST', protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: url.pathname, headers: unsigned, body }, { signingDate: when });
  return signed.headers.authorization;
}

/**
 * A loopback KMS: Encrypt and Decrypt of the JSON protocol under one key, each request's SigV4
 * signature checked against the AWS SDK's signer, the encryption context bound to the ciphertext.
 */
async function fakeKms() {
  const master = randomBytes(32);
  const calls: { target: string; context: unknown }[] = [];
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url!, `http://${req.headers.host}`);
    // The headers the request says it signed (fetch adds its own, unsigned, on the way).
    const signedNames = /SignedHeaders=([^,]+)/.exec(String(req.headers.authorization))?.[1]?.split(';') ?? [];
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => signedNames.includes(k) || k === 'authorization').map(([k, v]) => [k, String(v)]));
    const expected = await referenceAuthorization(headers, body, url, 'eu-west-3');
    const fail = (status: number, type: string) => (res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }), res.end(JSON.stringify({ __type: type })));
    if (headers.authorization !== expected) return fail(400, 'InvalidSignatureException');
    const input = JSON.parse(body) as { KeyId: string; Plaintext?: string; CiphertextBlob?: string; EncryptionContext: Record<string, string> };
    const aad = Buffer.from(JSON.stringify(input.EncryptionContext));
    calls.push({ target: headers['x-amz-target']!, context: input.EncryptionContext });
    if (input.KeyId !== 'alias/zero-vault' && input.KeyId !== 'arn:aws:kms:eu-west-3:111122223333:key/fake') return fail(400, 'NotFoundException');
    const ok = (value: object) => (res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }), res.end(JSON.stringify(value)));
    if (headers['x-amz-target'] === 'TrentService.Encrypt') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad);
      const blob = Buffer.concat([iv, cipher.update(Buffer.from(input.Plaintext!, 'base64')), cipher.final(), cipher.getAuthTag()]);
      return ok({ KeyId: 'arn:aws:kms:eu-west-3:111122223333:key/fake', CiphertextBlob: blob.toString('base64') });
    }
    try {
      const blob = Buffer.from(input.CiphertextBlob!, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12)).setAAD(aad);
      decipher.setAuthTag(blob.subarray(blob.length - 16));
      return ok({ Plaintext: Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]).toString('base64') });
    } catch {
      return fail(400, 'com.amazonaws.kms#InvalidCiphertextException');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('vault secrets sealed with KMS', () => {
  let kms: Awaited<ReturnType<typeof fakeKms>>;
  beforeAll(async () => (kms = await fakeKms()));
  afterAll(() => kms.close());
  const wrapper = () => new KmsKeyWrapper({ keyId: 'alias/zero-vault', endpoint: kms.url, region: async () => 'eu-west-3', credentials: async () => credentials });

  it('seals with a data key KMS wraps under the encryption context, and opens on the same credential only', async () => {
    const sealer = new Sealer(wrapper());
    const context = { zero_vault: 'vlt_a', zero_credential: 'vcrd_a' };
    const sealed = await sealer.seal('the secret', context);
    expect(sealed).toMatchObject({ kek: 'kms', key_id: 'arn:aws:kms:eu-west-3:111122223333:key/fake' });
    expect(JSON.stringify(sealed)).not.toContain('the secret');
    expect(await sealer.open(sealed, context)).toBe('the secret');
    expect(kms.calls.map((c) => c.target)).toEqual(['TrentService.Encrypt', 'TrentService.Decrypt']);
    expect(kms.calls[0]!.context).toEqual(context);
    // Copied onto another credential, the sealed secret does not open: KMS refuses the context, naming only the error's type.
    await expect(sealer.open(sealed, { ...context, zero_credential: 'vcrd_b' })).rejects.toThrow(/^KMS Decrypt failed: InvalidCiphertextException$/);
  });
});
