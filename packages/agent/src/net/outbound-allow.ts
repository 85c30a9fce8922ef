/**
 * The operator's outbound allow-list (`ZERO_OUTBOUND_ALLOW`), apart from the
 * guard so that reading configuration loads no address library at cold start.
 */

/** Reads `ZERO_OUTBOUND_ALLOW`: comma-separated hosts or `host:port` (IPv6 in brackets: `[::1]:8080`). */
export function outboundAllowFromEnv(raw: string | undefined): string[] | undefined {
  const hosts = (raw ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  for (const host of hosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/.test(host)) throw new Error(`ZERO_OUTBOUND_ALLOW: "${host}" is not a host or host:port`);
  }
  return hosts.length ? hosts : undefined;
}

/** The URL's host is on the operator's allow-list, by host alone or with its port. */
export function allowListed(url: URL, allow: readonly string[] | undefined): boolean {
  if (!allow?.length) return false;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allow.includes(host) || allow.includes(`${host}:${port}`);
}
