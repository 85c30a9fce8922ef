import { randomBytes } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { allowListed } from '@zero/agent/net/outbound-allow';
import type { OutboundOptions } from '@zero/agent/net/outbound';

/** A proxy on the host for one sandboxed command, listening on a unix socket the sandbox mounts. */
export interface EgressProxy {
  socketPath: string;
  close(): Promise<void>;
}

/**
 * The only way out of a sandbox whose environment opens hosts: an HTTP proxy (CONNECT for TLS,
 * absolute-URI requests for plain HTTP) on a unix socket. A host not on the environment's
 * allowlist is refused (403, naming it); an allowed host still passes the outbound guard that
 * web_fetch uses (no loopback, private or link-local address unless the deployment's
 * `ZERO_OUTBOUND_ALLOW` opens it), its address checked where it is dialled.
 */
export async function startEgressProxy(dir: string, allow: readonly string[], hostUid: number | undefined, outbound: OutboundOptions = {}): Promise<EgressProxy> {
  const { guardedAddress } = await import('@zero/agent/net/outbound');
  const socketPath = join(dir, `egress-${randomBytes(8).toString('hex')}.sock`);
  const sockets = new Set<Socket>();
  const allowed = allow.map((host) => host.toLowerCase());
  const check = async (url: URL) => {
    if (!hostAllowed(url, allowed)) throw new Error(`${url.host} is not on this environment's network allowlist (${allowed.join(', ')})`);
    return guardedAddress(url, outbound);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('only http:// URLs are proxied as requests; https goes through CONNECT');
    } catch (error) {
      res.writeHead(400).end(`${(error as Error).message}\n`);
      return;
    }
    check(url).then(
      (address) => {
        const upstream = httpRequest({ host: address.address, family: address.family, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...req.headers, host: url.host } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', (error) => res.headersSent ? res.destroy() : res.writeHead(502).end(`${error.message}\n`));
        req.pipe(upstream);
      },
      (error: Error) => res.writeHead(403).end(`refused: ${error.message}\n`),
    );
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let url: URL;
    try {
      url = new URL(`https://${req.url ?? ''}`);
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    check(url).then(
      (address) => {
        const upstream = connect({ host: address.address, port: Number(url.port || 443) }, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
      },
      (error: Error) => client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nrefused: ${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  // The sandbox's user (another host user when the server is root) must connect to it.
  await chmod(socketPath, hostUid === undefined ? 0o600 : 0o666);
  return {
    socketPath,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
}

/**
 * Whether an environment's allowlist opens the URL's host: `*` opens every host (the guard still
 * decides), `*.example.com` the names below example.com, otherwise the host alone or `host:port`.
 */
export function hostAllowed(url: URL, allow: readonly string[]): boolean {
  if (allow.includes('*')) return true;
  const host = url.hostname.toLowerCase();
  if (allow.some((entry) => entry.startsWith('*.') && host.endsWith(entry.slice(1)))) return true;
  return allowListed(url, allow);
}

/**
 * Runs inside the sandbox (with the sandbox's node): listens on the sandbox's own loopback and
 * relays each connection to the proxy's socket; tells the command it is ready through a file in /tmp.
 */
export const RELAY_SCRIPT = `'use strict';
const net = require('node:net');
const fs = require('node:fs');
const [socketPath, port] = process.argv.slice(2);
net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).on('error', () => client.destroy());
  upstream.pipe(client).on('error', () => upstream.destroy());
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(Number(port), '127.0.0.1', () => fs.writeFileSync('/tmp/.relay-ready', ''));
`;
