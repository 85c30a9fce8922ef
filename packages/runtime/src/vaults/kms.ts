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
 * context, so CloudTrail names the credential of every unwrap). Two JSON calls signed by the AWS SDK's
 * own SigV4 signer (already in every function, under the DynamoDB and S3 clients), rather than the whole
 * KMS client as another dependency of every function.
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
    // Loaded with the first vault secret sealed or opened, not at cold start.
    const [{ SignatureV4 }, { Sha256 }] = await Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]);
    const signer = new SignatureV4({ credentials: await this.options.credentials(), region, service: 'kms', sha256: Sha256, applyChecksum: false });
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname || '/',
      headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${action}` },
      body: payload,
    });
    const headers = signed.headers as Record<string, string>;
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
