import { createHash, createHmac } from 'node:crypto';
import type { KeyWrapper } from './sealer';

/** AWS credentials as the SDK's providers give them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface KmsOptions {
  /** The key's id, ARN or alias (`ZERO_VAULT_KMS_KEY`). */
  keyId: string;
  region: () => Promise<string>;
  /** The deployment's credentials (the S3 client's provider, so whatever reaches the bucket reaches KMS). */
  credentials: () => Promise<AwsCredentials>;
  /** Another KMS endpoint (tests); default `https://kms.<region>.amazonaws.com`. */
  endpoint?: string;
}

/**
 * Data keys wrapped by AWS KMS (`Encrypt` / `Decrypt`, the vault and credential ids as the encryption
 * context, so CloudTrail names the credential of every unwrap). Two JSON calls signed with SigV4 here,
 * rather than the KMS client as a dependency of every function.
 */
export class KmsKeyWrapper implements KeyWrapper {
  readonly kind = 'kms' as const;

  constructor(private readonly options: KmsOptions) {}

  async wrap(dataKey: Buffer, context: Record<string, string>) {
    const out = await this.call('Encrypt', { KeyId: this.options.keyId, Plaintext: dataKey.toString('base64'), EncryptionContext: context });
    return { keyId: String(out.KeyId ?? this.options.keyId), wrapped: Buffer.from(String(out.CiphertextBlob), 'base64') };
  }

  async unwrap(wrapped: Buffer, keyId: string, context: Record<string, string>) {
    const out = await this.call('Decrypt', { KeyId: keyId, CiphertextBlob: wrapped.toString('base64'), EncryptionContext: context });
    return Buffer.from(String(out.Plaintext), 'base64');
  }

  private async call(action: 'Encrypt' | 'Decrypt', body: object): Promise<Record<string, unknown>> {
    const region = await this.options.region();
    const url = new URL(this.options.endpoint ?? `https://kms.${region}.amazonaws.com/`);
    const payload = JSON.stringify(body);
    const headers = signV4({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${action}` },
      body: payload,
      region,
      service: 'kms',
      credentials: await this.options.credentials(),
      now: new Date(),
    });
    const response = await fetch(url, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(10_000) });
    const text = await response.text();
    if (!response.ok) {
      // KMS's error names the problem (`AccessDeniedException`, `InvalidCiphertextException`); it never holds key material.
      const type = /"__type"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? `HTTP ${response.status}`;
      throw new Error(`KMS ${action} failed: ${type.split('#').at(-1)}`);
    }
    return JSON.parse(text) as Record<string, unknown>;
  }
}

export interface SignInput {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now: Date;
}

/** The request's headers with AWS Signature Version 4 added (`host`, `x-amz-date`, the token, `authorization`). */
export function signV4(input: SignInput): Record<string, string> {
  const amzDate = input.now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v.trim()])),
    host: input.url.host,
    'x-amz-date': amzDate,
    ...(input.credentials.sessionToken ? { 'x-amz-security-token': input.credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const query = [...input.url.searchParams].map(([k, v]) => `${encode(k)}=${encode(v)}`).sort().join('&');
  const canonical = [input.method, input.url.pathname || '/', query, ...names.map((n) => `${n}:${headers[n]}`), '', signedHeaders, sha256(input.body)].join('\n');
  const scope = `${date}/${input.region}/${input.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key: Buffer = hmac(`AWS4${input.credentials.secretAccessKey}`, date);
  for (const part of [input.region, input.service, 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}` };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
