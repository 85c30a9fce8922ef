import type { SecretScrubber } from '@zero/agent/loop/secret-scrubber';
import { hostAllowed } from '../vaults/host-binding';
import type { VaultSecret } from '../vaults/session-secrets';

/**
 * Secrets an http_request header may name (`{{secret:ZERO_HTTP_SECRET_GITHUB}}`): the model sees and
 * sends only the name; the value is read from the environment at call time, put on the wire to the
 * hosts the operator bound it to (`ZERO_HTTP_SECRET_GITHUB_HOSTS`: a bare host is https on port 443;
 * another port, or cleartext http, only when an entry says so) and to no other, and scrubbed from
 * everything the tool returns, including what a server reflects back. A session's vault credentials
 * (`vault_ids`, see docs/api/vaults.md) are named the same way by their `secret_name`
 * (`{{secret:GITHUB_TOKEN}}`) and go only to their credential's `allowed_hosts`.
 */

/** The only variables a reference may name, so a model cannot read out the deployment's other settings. */
export const HTTP_SECRET_PREFIX = 'ZERO_HTTP_SECRET_';
/** `<secret>_HOSTS` lists the hosts a secret is for; such a variable is never a secret itself. */
export const HOSTS_SUFFIX = '_HOSTS';

const REFERENCE = /\{\{\s*secret:([^}]*)\}\}/g;
const SECRET_NAME = /^ZERO_HTTP_SECRET_[A-Z0-9_]+$/;
/**
 * `api.github.com` (https on 443), `api.github.com:8443` (https on 8443), `*.github.com` (any name below
 * github.com, https on 443), or with a scheme: `https://…` as without one, `http://host[:port]` (cleartext,
 * port 80 unless given) only when written so.
 */
const HOST_ENTRY = /^(?:(https?):\/\/)?((?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/;
const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

/** Where one `_HOSTS` entry lets a secret go: one scheme, one port, a host or `*.domain`. */
interface HostEntry {
  text: string;
  scheme: 'http' | 'https';
  host: string;
  port: string;
}

/** The names of the secrets a text references, each once. */
export function referencedSecrets(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((match) => match[1]!.trim()))];
}

/** True when the text names a secret; a reference outside header values is refused rather than sent literally. */
export function mentionsSecret(text: string): boolean {
  return /\{\{\s*secret:/.test(text);
}

/**
 * Replaces every `{{secret:NAME}}` in a header value with the secret's value and adds the value to
 * `secrets`: the session's vault credential of that `secret_name` (in `vault`), else the variable.
 * Throws an Error whose message names the reference (never a value) when the name is not allowed,
 * the secret is unset, bound to no host or not to `target`'s, or unusable in a header.
 */
export function resolveSecrets(value: string, target: URL, secrets: SecretScrubber, env: NodeJS.ProcessEnv = process.env, vault: ReadonlyMap<string, VaultSecret> = new Map()): string {
  return value.replace(REFERENCE, (_whole, raw: string) => {
    const name = raw.trim();
    const credential = vault.get(name);
    if (credential) return vaultValue(credential, name, target, secrets);
    if (!SECRET_NAME.test(name)) {
      throw new Error(`"${name}" cannot be referenced: only secrets named ${HTTP_SECRET_PREFIX}<NAME> (capitals, digits, _) can, and the credentials of the session's vaults by their secret_name`);
    }
    if (name.endsWith(HOSTS_SUFFIX)) throw new Error(`"${name}" lists the hosts of a secret; it is not a secret`);
    const secret = env[name];
    if (!secret) throw new Error(`the secret ${name} is not set on this deployment`);
    const hosts = secretHosts(name, env);
    if (!hosts.some((entry) => hostMatches(entry, target))) {
      throw new Error(
        `the secret ${name} is only sent to ${hosts.map((entry) => entry.text).join(', ')} (${name}${HOSTS_SUFFIX}; a bare host means https on port 443), ` +
          `not to ${target.protocol}//${target.host}. Nothing was sent`,
      );
    }
    // A line break would let a value start a header of its own.
    if (/[\r\n\0]/.test(secret)) throw new Error(`the secret ${name} holds a line break or NUL and cannot go in a header`);
    secrets.add(secret, name);
    return secret;
  });
}

/** A vault credential's value, when `target`'s host is one of its `allowed_hosts`. */
function vaultValue(credential: VaultSecret, name: string, target: URL, secrets: SecretScrubber): string {
  if (!hostAllowed(credential.allowedHosts, target)) {
    throw new Error(`the secret ${credential.label} is only sent to ${credential.allowedHosts.join(', ')} (its allowed_hosts), not to ${target.hostname}. Nothing was sent`);
  }
  if (/[\r\n\0]/.test(credential.value)) throw new Error(`the secret ${credential.label} holds a line break or NUL and cannot go in a header`);
  secrets.add(credential.value, name);
  return credential.value;
}

/** The hosts the operator bound a secret to; a secret bound to none is sent nowhere. */
function secretHosts(name: string, env: NodeJS.ProcessEnv): HostEntry[] {
  const variable = `${name}${HOSTS_SUFFIX}`;
  const texts = (env[variable] ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  if (texts.length === 0) throw new Error(`the secret ${name} is bound to no host, so it is sent nowhere: the operator sets ${variable} to the hosts it is for`);
  return texts.map((text) => {
    // A trailing dot names the same host (`api.github.com.`); a trailing slash is how URLs are often pasted.
    const match = HOST_ENTRY.exec(text.replace(/\/$/, '').replace(/\.(?=:\d+$|$)/, ''));
    if (!match) throw new Error(`${variable}: "${text}" is not a host, host:port, *.domain or http(s)://host[:port], so the secret ${name} is sent nowhere`);
    const scheme = (match[1] ?? 'https') as HostEntry['scheme'];
    return { text, scheme, host: match[2]!, port: match[3] ?? DEFAULT_PORT[scheme]! };
  });
}

/** The URL has the entry's scheme and port (https and 443 for a bare host), and its host or a name below `*.domain`. */
function hostMatches(entry: HostEntry, url: URL): boolean {
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== entry.scheme) return false;
  if ((url.port || DEFAULT_PORT[scheme]) !== entry.port) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return entry.host.startsWith('*.') ? host.endsWith(entry.host.slice(1)) : host === entry.host;
}
