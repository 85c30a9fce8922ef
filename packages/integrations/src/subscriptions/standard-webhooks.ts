import { createHmac } from 'node:crypto';

/**
 * The signing key of a Standard Webhooks secret: `whsec_<base64>` is the
 * base64-decoded bytes, as the specification and its libraries read it;
 * any other value is taken as its UTF-8 bytes.
 */
export function standardWebhookKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * The headers of a message signed in the Standard Webhooks format
 * (standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
 * `timestamp` in seconds since the epoch.
 */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const signature = createHmac('sha256', standardWebhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
