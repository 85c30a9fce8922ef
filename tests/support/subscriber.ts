import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a subscriber received. */
export interface Delivery {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A subscriber on loopback at `path`: answers each POST with the next status of `statuses` (then 200), records what it got. */
export async function startSubscriber(path = '/zero-events') {
  const received: Delivery[] = [];
  const statuses: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { received, statuses, origin, url: `${origin}${path}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * Verifies a delivery as a Standard Webhooks receiver does, written from the specification (not
 * Zero's code): the `whsec_` key's HMAC-SHA256 over `id.timestamp.body`, at the time it arrived.
 */
export function verifiedStandardWebhook(delivery: Delivery, secret: string): boolean {
  const id = String(delivery.headers['webhook-id']);
  const timestamp = String(delivery.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${delivery.body}`).digest('base64')}`;
  return String(delivery.headers['webhook-signature']).split(' ').includes(expected) && Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
}
