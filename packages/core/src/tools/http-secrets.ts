import type { SecretScrubber } from '../run/secret-scrubber';

/**
 * Secrets an http_request header may name (`{{secret:ZERO_HTTP_SECRET_GITHUB}}`): the model sees and
 * sends only the name; the value is read from the environment at call time, put on the wire to the
 * hosts the operator bound it to (`ZERO_HTTP_SECRET_GITHUB_HOSTS`) and to no other, and scrubbed from
 * everything the tool returns, including what a server reflects back.
 */

/** The only variables a reference may name, so a model cannot read out the deployment's other settings. */
export const HTTP_SECRET_PREFIX = 'ZERO_HTTP_SECRET_';
/** `<secret>_HOSTS` lists the hosts a secret is for; such a variable is never a secret itself. */
export const HOSTS_SUFFIX = '_HOSTS';

const REFERENCE = /\{\{\s*secret:([^}]*)\}\}/g;
const SECRET_NAME = /^ZERO_HTTP_SECRET_[A-Z0-9_]+$/;
/** `api.github.com`, `api.github.com:8443` or `*.github.com` (any name below github.com). */
const HOST_ENTRY = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/** True when the text names a secret; a reference outside header values is refused rather than sent literally. */
export function mentionsSecret(text: string): boolean {
  return /\{\{\s*secret:/.test(text);
}

/**
 * Replaces every `{{secret:NAME}}` in a header value with the variable's value and adds the value to
 * `secrets`. Throws an Error whose message names the reference (never a value) when the name is not
 * allowed, the secret is unset, bound to no host or not to `target`'s, or unusable in a header.
 */
export function resolveSecrets(value: string, target: URL, secrets: SecretScrubber, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(REFERENCE, (_whole, raw: string) => {
    const name = raw.trim();
    if (!SECRET_NAME.test(name)) throw new Error(`"${name}" cannot be referenced: only secrets named ${HTTP_SECRET_PREFIX}<NAME> (capitals, digits, _) can`);
    if (name.endsWith(HOSTS_SUFFIX)) throw new Error(`"${name}" lists the hosts of a secret; it is not a secret`);
    const secret = env[name];
    if (!secret) throw new Error(`the secret ${name} is not set on this deployment`);
    const hosts = secretHosts(name, env);
    if (!hosts.some((entry) => hostMatches(entry, target))) {
      throw new Error(`the secret ${name} is only sent to ${hosts.join(', ')} (${name}${HOSTS_SUFFIX}), not to ${target.host}. Nothing was sent`);
    }
    // A line break would let a value start a header of its own.
    if (/[\r\n\0]/.test(secret)) throw new Error(`the secret ${name} holds a line break or NUL and cannot go in a header`);
    secrets.add(secret, name);
    return secret;
  });
}

/** The hosts the operator bound a secret to; a secret bound to none is sent nowhere. */
function secretHosts(name: string, env: NodeJS.ProcessEnv): string[] {
  const variable = `${name}${HOSTS_SUFFIX}`;
  const hosts = (env[variable] ?? '').split(',').map((entry) => entry.trim().toLowerCase().replace(/\.(?=:|$)/, '')).filter(Boolean);
  if (hosts.length === 0) throw new Error(`the secret ${name} is bound to no host, so it is sent nowhere: the operator sets ${variable} to the hosts it is for`);
  const bad = hosts.find((entry) => !HOST_ENTRY.test(entry));
  if (bad) throw new Error(`${variable}: "${bad}" is not a host, host:port or *.domain, so the secret ${name} is sent nowhere`);
  return hosts;
}

/** `host` matches the URL's host on any port, `host:port` on that port, `*.domain` any name below domain. */
function hostMatches(entry: string, url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const [pattern, wantedPort] = entry.split(':') as [string, string | undefined];
  if (wantedPort !== undefined && wantedPort !== port) return false;
  return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
}
