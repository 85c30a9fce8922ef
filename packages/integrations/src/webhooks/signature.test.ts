import { describe, expect, it } from 'vitest';
import { genericSigningPayload, signSha256, verifySha256 } from './signature';

describe('webhook signatures', () => {
  // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
  const secret = "It's a Secret to Everybody";
  const published = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it("verifies GitHub's published test vector", () => {
    expect(signSha256(secret, 'Hello, World!')).toBe(published);
    expect(verifySha256(secret, Buffer.from('Hello, World!'), published)).toBe(true);
  });

  it('refuses a wrong, truncated, malformed or missing signature', () => {
    const body = Buffer.from('Hello, World!');
    expect(verifySha256(secret, body, published.replace(/e17$/, 'e18'))).toBe(false);
    expect(verifySha256(secret, body, published.slice(0, -2))).toBe(false);
    expect(verifySha256(secret, body, published.slice('sha256='.length))).toBe(false);
    expect(verifySha256(secret, body, `sha1=${published.slice(7)}`)).toBe(false);
    expect(verifySha256(secret, body, undefined)).toBe(false);
    expect(verifySha256(secret, body, '')).toBe(false);
    expect(verifySha256('another secret', body, published)).toBe(false);
    expect(verifySha256(secret, Buffer.from('Hello, World!\n'), published)).toBe(false);
  });

  it('binds the generic signature to its timestamp, delivery id and event', () => {
    const body = Buffer.from('{"a":1}');
    const signed = { timestamp: '1700000000', delivery: 'd-1', event: 'deploy.succeeded' };
    const signature = signSha256(secret, genericSigningPayload(signed, body));
    expect(genericSigningPayload(signed, body).toString()).toBe('v1:1700000000:d-1:deploy.succeeded:{"a":1}');
    expect(verifySha256(secret, genericSigningPayload(signed, body), signature)).toBe(true);
    expect(verifySha256(secret, genericSigningPayload({ ...signed, timestamp: '1700000001' }, body), signature)).toBe(false);
    expect(verifySha256(secret, genericSigningPayload({ ...signed, delivery: 'd-2' }, body), signature)).toBe(false);
    expect(verifySha256(secret, genericSigningPayload({ ...signed, event: 'deploy.failed' }, body), signature)).toBe(false);
    expect(verifySha256(secret, genericSigningPayload({ ...signed, delivery: undefined }, body), signature)).toBe(false);
    // Absent headers are signed as empty fields.
    expect(genericSigningPayload({ timestamp: '1700000000' }, body).toString()).toBe('v1:1700000000:::{"a":1}');
  });
});
