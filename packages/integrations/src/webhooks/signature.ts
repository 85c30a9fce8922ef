import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex>` of HMAC-SHA256 over `payload`: the form of GitHub's `X-Hub-Signature-256` and Zero's `X-Zero-Signature`. */
export function signSha256(secret: string, payload: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;
}

const SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/**
 * Whether `header` is the signature of `payload` under `secret`. A header that
 * is missing, malformed or truncated is refused before any comparison; a
 * well-formed one is compared in constant time.
 */
export function verifySha256(secret: string, payload: string | Uint8Array, header: string | undefined): boolean {
  if (!header || !SIGNATURE.test(header.trim().toLowerCase())) return false;
  const expected = Buffer.from(signSha256(secret, payload));
  const given = Buffer.from(header.trim().toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The headers a generic signature covers besides the body; an absent one is signed as the empty string. */
export interface GenericSignedHeaders {
  /** `X-Zero-Timestamp`: seconds since the epoch. */
  timestamp: string;
  /** `X-Zero-Delivery`, if sent. */
  delivery?: string;
  /** `X-Zero-Event`, if sent. */
  event?: string;
}

/**
 * What a generic sender signs: `v1:<timestamp>:<delivery>:<event>:<raw body>`.
 * Every header the receiver acts on is bound, so a signed request cannot be
 * replayed under a new delivery id, moved to another time, or relabelled as
 * another event. None of the three may contain ":" (timestamps are digits,
 * events and delivery ids are checked), so the string splits one way only.
 */
export function genericSigningPayload({ timestamp, delivery = '', event = '' }: GenericSignedHeaders, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`v1:${timestamp}:${delivery}:${event}:`), body]);
}

/** The headers of a request signed the generic way (Zero's callbacks, and what generic senders send). */
export function signGeneric(
  secret: string,
  body: string,
  headers: { delivery?: string; event?: string } = {},
  now = Date.now(),
): { 'x-zero-timestamp': string; 'x-zero-signature': string } {
  const timestamp = String(Math.floor(now / 1000));
  return { 'x-zero-timestamp': timestamp, 'x-zero-signature': signSha256(secret, genericSigningPayload({ timestamp, ...headers }, Buffer.from(body))) };
}
