import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Dispatcher } from 'undici';
import { defineErrorClass } from '../errors';
import { allowListed } from './outbound-allow';

export { allowListed, outboundAllowFromEnv } from './outbound-allow';

/** A resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable so tests run without DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundOptions {
  resolver?: Resolver;
  /**
   * Maps an address that passed the checks to the address actually dialled.
   * Only tests use it, to send a checked "public" address to a loopback listener.
   */
  dialAddress?: (address: string) => string;
  maxRedirects?: number;
  /**
   * Hosts the operator lets tools reach although they are local or private
   * (`ZERO_OUTBOUND_ALLOW`: `127.0.0.1`, `mcp.internal:8443`): a host alone
   * allows every port, `host:port` that port only. Nothing else is loosened.
   */
  allow?: readonly string[];
}


/** A response read under the caps. */
export interface FetchedResponse {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was cut at maxBytes. */
  truncated: boolean;
  /** The time limit struck while the body was being read; `body` is what arrived. */
  timedOut: boolean;
  /** The final response's headers, names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The URLs of the redirects followed, in order (the final one is `url`). */
  redirects: string[];
}

/** Request headers that carry credentials: dropped when a redirect leaves the origin, as browsers do. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/** Why an outbound request was refused; never reaches a socket. */
export class OutboundBlockedError extends defineErrorClass('OutboundBlockedError') {}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Why an address may not be dialled, or undefined when it is a public unicast
 * address. IPv4-mapped IPv6 is judged as the IPv4 it carries; every IPv6
 * outside 2000::/3 (IPv4-compatible, NAT64, unique-local, link-local…) is refused.
 */
export function refusedAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range !== 'unicast') return `${address} is a ${range} address`;
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return `${address} is not a global unicast address`;
  return undefined;
}

/**
 * Checks a URL before anything is resolved: scheme, credentials, host names
 * that are local by definition, IP literals. A host on `allow` skips the
 * local and private checks (never the scheme, credentials or Lambda Runtime API ones).
 */
export function refusedUrl(url: URL, allow?: readonly string[]): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs can be fetched, not ${url.protocol}`;
  if (url.username || url.password) return 'URLs with credentials (user@host) are refused';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return 'the URL has no host';
  const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API;
  if (runtimeApi && (url.host === runtimeApi || host === runtimeApi.split(':')[0])) return 'the Lambda Runtime API is not reachable from tools';
  if (allowListed(url, allow)) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a local host name`;
  if (isIP(host)) return refusedAddress(host);
  return undefined;
}

const defaultResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Sends a request (GET by default) with the outbound guard: the URL is checked, then every
 * address the host resolves to is checked inside the connection's own lookup,
 * so the address dialled is the address checked (no DNS-rebinding gap).
 * A GET's or HEAD's redirects are followed by hand, each hop checked again, and a hop to
 * another origin drops the credential headers (and the caller's `sensitiveHeaders`); any
 * other method is never redirected (its 3xx answer is returned). The body is cut at maxBytes
 * and the whole exchange at timeoutMs; a partial body is kept and marked.
 */
export async function guardedFetch(
  target: string,
  options: OutboundOptions & {
    maxBytes: number;
    timeoutMs: number;
    signal?: AbortSignal;
    headers?: Record<string, string>;
    /** Header names (any case) that must not follow a redirect to another origin. */
    sensitiveHeaders?: string[];
    method?: Dispatcher.HttpMethod;
    body?: string;
  },
): Promise<FetchedResponse> {
  const method = options.method ?? 'GET';
  const follows = method === 'GET' || method === 'HEAD';
  let headers = options.headers;
  const redirects: string[] = [];
  const { Agent, request } = await import('undici');
  let blocked: string | undefined;
  let allowed = false;
  const lookup = guardedLookup(options, () => allowed, (reason) => (blocked = reason));

  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, options.timeoutMs);
  const agent = new Agent({ connect: { lookup, timeout: options.timeoutMs }, maxRedirections: 0 });
  try {
    let url = new URL(target);
    for (let hop = 0; ; hop++) {
      const refused = refusedUrl(url, options.allow);
      if (refused) throw new OutboundBlockedError(hop ? `redirect to ${url.href} refused: ${refused}` : refused);
      allowed = allowListed(url, options.allow);
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(url, { dispatcher: agent, method, headers, body: options.body, signal: controller.signal });
      } catch (error) {
        if (blocked) throw new OutboundBlockedError(hop ? `redirect to ${url.href} refused: ${blocked}` : blocked);
        if (timedOut) throw new Error(`no response within ${options.timeoutMs} ms`);
        throw error;
      }
      const location = response.headers.location;
      if (follows && [301, 302, 303, 307, 308].includes(response.statusCode) && typeof location === 'string') {
        await response.body.dump().catch(() => undefined);
        if (hop >= (options.maxRedirects ?? 5)) throw new Error(`more than ${options.maxRedirects ?? 5} redirects`);
        const next = new URL(location, url);
        if (next.origin !== url.origin) headers = withoutHeaders(headers, [...CREDENTIAL_HEADERS, ...(options.sensitiveHeaders ?? [])]);
        redirects.push(url.href);
        url = next;
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      try {
        for await (const chunk of response.body) {
          const buffer = chunk as Buffer;
          if (size + buffer.byteLength > options.maxBytes) {
            chunks.push(buffer.subarray(0, options.maxBytes - size));
            size = options.maxBytes;
            truncated = true;
            break;
          }
          chunks.push(buffer);
          size += buffer.byteLength;
        }
      } catch (error) {
        if (!timedOut) throw error;
      } finally {
        response.body.destroy();
      }
      const contentType = String(response.headers['content-type'] ?? '');
      return { url: url.href, status: response.statusCode, contentType, body: Buffer.concat(chunks), truncated, timedOut, headers: response.headers, redirects };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    await agent.destroy().catch(() => undefined);
  }
}

/**
 * The connection's own lookup: every address the host resolves to is
 * checked, so the address dialled is the address checked (no DNS-rebinding
 * gap); `allowed()` says the request's host is on the operator's allow-list.
 */
function guardedLookup(options: OutboundOptions, allowed: () => boolean, onBlocked: (reason: string) => void): LookupFunction {
  const resolver = options.resolver ?? defaultResolver;
  return (hostname, lookupOptions, callback) => {
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), '', 4);
        for (const a of allowed() ? [] : addresses) {
          const reason = refusedAddress(a.address);
          if (reason) {
            const blocked = `${hostname} resolves to a refused address: ${reason}`;
            onBlocked(blocked);
            return callback(new OutboundBlockedError(blocked), '', 4);
          }
        }
        const dialled = addresses.map((a) => ({ address: options.dialAddress?.(a.address) ?? a.address, family: a.family }));
        if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof dialled) => void)(null, dialled);
        callback(null, dialled[0]!.address, dialled[0]!.family);
      },
      (error: Error) => callback(Object.assign(error, { code: (error as { code?: string }).code ?? 'ENOTFOUND' }), '', 4),
    );
  };
}

/**
 * The address to dial for `url` under the outbound guard (for a connection made by hand, as the
 * sandbox's egress proxy does): the URL checked, every address its host resolves to checked
 * unless the host is on `allow`, the first one returned. Throws OutboundBlockedError naming why.
 */
export async function guardedAddress(url: URL, options: OutboundOptions = {}): Promise<ResolvedAddress> {
  const refused = refusedUrl(url, options.allow);
  if (refused) throw new OutboundBlockedError(refused);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(hostname) ? [{ address: hostname, family: (isIP(hostname) === 6 ? 6 : 4) as 4 | 6 }] : await (options.resolver ?? defaultResolver)(hostname);
  if (addresses.length === 0) throw new OutboundBlockedError(`${hostname} did not resolve`);
  if (!allowListed(url, options.allow)) {
    for (const a of addresses) {
      const reason = refusedAddress(a.address);
      if (reason) throw new OutboundBlockedError(`${hostname} resolves to a refused address: ${reason}`);
    }
  }
  const first = addresses[0]!;
  return { address: options.dialAddress?.(first.address) ?? first.address, family: first.family };
}

/** A WHATWG `fetch` whose every request passes the outbound guard, for clients that stream (MCP's SSE). */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` for one remote service: each request's URL is checked, its
 * connections resolve through the guarded lookup, and redirects are not
 * followed (a 3xx is returned as it is), so no hop escapes the checks. The
 * response streams; the caller bounds its time with `init.signal`.
 * `close()` releases the connections.
 */
export async function createGuardedFetch(options: OutboundOptions = {}): Promise<GuardedFetch & { close(): Promise<void> }> {
  const undici = await import('undici');
  const dispatchers = new Map<boolean, InstanceType<typeof undici.Agent>>();
  // One connection pool for allow-listed hosts (their addresses unchecked), one for the rest.
  const dispatcher = (allowed: boolean) => {
    let agent = dispatchers.get(allowed);
    if (!agent) {
      agent = new undici.Agent({ connect: { lookup: guardedLookup(options, () => allowed, () => undefined) } });
      dispatchers.set(allowed, agent);
    }
    return agent;
  };
  const guarded = async (target: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(target));
    const refused = refusedUrl(url, options.allow);
    if (refused) throw new OutboundBlockedError(refused);
    try {
      const response = await undici.fetch(url, { ...(init as object), redirect: 'manual', dispatcher: dispatcher(allowListed(url, options.allow)) } as never);
      return response as unknown as Response;
    } catch (error) {
      // undici reports a refused lookup as "fetch failed" with the guard's error as its cause.
      const cause = (error as { cause?: unknown }).cause;
      if (OutboundBlockedError.isInstance(cause)) throw cause;
      throw error;
    }
  };
  return Object.assign(guarded, {
    close: async () => {
      await Promise.all([...dispatchers.values()].map((agent) => agent.close().catch(() => undefined)));
      dispatchers.clear();
    },
  });
}

function withoutHeaders(headers: Record<string, string> | undefined, names: string[]): Record<string, string> | undefined {
  if (!headers) return headers;
  const drop = new Set(names.map((name) => name.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())));
}
