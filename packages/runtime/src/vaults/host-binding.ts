/**
 * The hosts a vault credential is bound to (`networking.allowed_hosts`), as the Managed Agents API
 * defines them: a bare hostname (`api.example.com`), an IPv4 address, or `*.example.com` (any name
 * below example.com, not example.com itself). No scheme, port, path or IPv6 address; at most 16.
 * The binding is the host: the request's scheme and port are not part of it.
 */

export const MAX_ALLOWED_HOSTS = 16;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`);
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Why `entry` is not an allowed host, or undefined when it is one. */
export function allowedHostProblem(entry: string): string | undefined {
  if (entry.length === 0 || entry.length > 253) return 'must be 1 to 253 characters';
  if (/[:/?#@\[\]]/.test(entry)) return 'must be a bare host: no scheme, port, path or IPv6 address';
  if (entry !== entry.toLowerCase()) return 'must be lower case';
  if (IPV4.test(entry)) return undefined;
  if (entry === '*' || (entry.startsWith('*.') && !entry.slice(2).includes('.'))) return 'a wildcard must name a domain with at least two labels, e.g. *.example.com';
  if (!HOSTNAME.test(entry)) return 'must be a hostname, an IPv4 address or *.domain';
  return undefined;
}

/** Whether a request to `url` may carry a secret bound to `hosts`. */
export function hostAllowed(hosts: readonly string[], url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return hosts.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry));
}
