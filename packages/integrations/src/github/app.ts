import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { ZeroError, invalidField } from '@zero/agent/errors';
import { addLogSecrets } from '@zero/agent/log/log';
import { GitHubClient, GitHubRequestError, repoPath, type GitHubCredentials, type GitHubOptions } from './client';

/**
 * A GitHub App as a token reference names it: `ZERO_GITHUB_APP` (the
 * deployment's) or `ZERO_GITHUB_APP_<NAME>`, whose id and private key are the
 * variables `<ref>_ID` and `<ref>_PRIVATE_KEY`. The key is parsed once, here,
 * so a malformed one is a 400 when a hook or hydrate names it, not a failure
 * in the middle of a run.
 */
export interface GitHubApp {
  ref: string;
  id: string;
  key: KeyObject;
}

/** A token reference that names an App rather than a token variable. */
export const isAppRef = (ref: string) => /^ZERO_GITHUB_APP(_|$)/.test(ref);
export const appIdVariable = (ref: string) => `${ref}_ID`;
export const appKeyVariable = (ref: string) => `${ref}_PRIVATE_KEY`;

/** The JWT's lifetime: GitHub takes at most ten minutes, counted from `iat`, which is set a minute back for clock drift. */
const JWT_BACKDATE_S = 60;
const JWT_LIFETIME_S = 9 * 60;
/** A cached installation token is used until this long before GitHub's `expires_at`: no run starts with one about to lapse. */
const RENEW_BEFORE_MS = 5 * 60_000;

/** Reads an App's id and key through `resolve` (the environment by default); throws a 400 naming `field` when either is missing or unusable. Never quotes the key. */
export function loadApp(resolve: (name: string) => string | undefined, ref: string, field: string): GitHubApp {
  const id = resolve(appIdVariable(ref))?.trim();
  const pem = resolve(appKeyVariable(ref));
  if (!id) throw invalidField(field, `${ref} names a GitHub App, but ${appIdVariable(ref)} is not set in the server's environment`);
  // The app's numeric id, or its client id (`Iv1.…`, `Iv23…`), which GitHub also takes as the JWT's issuer.
  if (!/^(\d{1,20}|Iv[0-9A-Za-z.]{4,60})$/.test(id)) throw invalidField(field, `${appIdVariable(ref)} must be the GitHub App's numeric id (or its client id)`);
  if (!pem?.trim()) throw invalidField(field, `${ref} names a GitHub App, but ${appKeyVariable(ref)} is not set in the server's environment`);
  return { ref, id, key: parseKey(pem, ref, field) };
}

/** The App's key, PEM as GitHub hands it out (PKCS#1 `RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`), its newlines possibly written `\n`. */
function parseKey(pem: string, ref: string, field: string): KeyObject {
  // Trimmed after the escapes are read too: a key written on one line often ends in a literal `\n`.
  const text = pem.trim().replace(/\\n/g, '\n').replace(/\r\n/g, '\n').trim();
  let key: KeyObject;
  try {
    if (!/^-----BEGIN (RSA )?PRIVATE KEY-----\n[\s\S]+\n-----END (RSA )?PRIVATE KEY-----$/.test(text)) throw new Error('not PEM');
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    // The parser's own message may quote the key's text: not repeated.
    throw invalidField(field, `${appKeyVariable(ref)} is not a PEM private key (the .pem file GitHub gives for the App, "-----BEGIN RSA PRIVATE KEY-----" …; newlines may be written \\n)`);
  }
  if (key.asymmetricKeyType !== 'rsa') throw invalidField(field, `${appKeyVariable(ref)} must be an RSA key, as GitHub Apps' keys are (RS256)`);
  addLogSecrets([pem, text]);
  return key;
}

/** The App's JSON web token (RS256): what GitHub takes to find an installation and mint its tokens. */
export function appJwt(app: GitHubApp, nowMs: number): string {
  const now = Math.floor(nowMs / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat: now - JWT_BACKDATE_S, exp: now + JWT_LIFETIME_S, iss: app.id })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(app.key).toString('base64url')}`;
}

interface Minted {
  token: string;
  expiresAt: number;
}

/** A warm instance's installation tokens, per (API, App reference, installation), and which installation holds each repository. */
export interface InstallationTokenCache {
  tokens: Map<string, Promise<Minted>>;
  installations: Map<string, Promise<number>>;
}

export const newTokenCache = (): InstallationTokenCache => ({ tokens: new Map(), installations: new Map() });

/**
 * The credentials of a GitHub client acting as an App's installation on one
 * repository: the installation token is minted on first use and reused from
 * the cache until five minutes before it expires; when GitHub refuses it
 * anyway (revoked, clocks apart), the client asks once for a fresh one.
 */
export function installationCredentials(app: GitHubApp, repo: string, options: GitHubOptions, cache: InstallationTokenCache, field: string): GitHubCredentials {
  const now = () => options.now?.() ?? Date.now();
  const apiUrl = (options.apiUrl ?? '').replace(/\/+$/, '');
  // Keyed by the reference too: a second reference to the same App with another (wrong) key never rides on the first's tokens.
  const appKey = `${apiUrl}|${app.ref}|${app.id}`;
  const repoKey = `${appKey}|${repo}`;
  const jwtClient = () => new GitHubClient(appJwt(app, now()), options);

  const installationOf = (): Promise<number> => {
    let found = cache.installations.get(repoKey);
    if (!found) {
      found = jwtClient()
        .json<{ id: number }>('GET', `${repoPath(repo)}/installation`)
        .then(({ value }) => {
          if (!Number.isSafeInteger(value.id)) throw new GitHubRequestError(200, `GET ${repoPath(repo)}/installation`, 'the answer names no installation', 1);
          return value.id;
        });
      cache.installations.set(repoKey, found);
      const pending = found;
      pending.catch(() => cache.installations.get(repoKey) === pending && cache.installations.delete(repoKey));
    }
    return found.catch((error) => Promise.reject(appFailure(error, app, repo, field)));
  };

  const mint = async (installation: number): Promise<Minted> => {
    // Scoped to the one repository: a token Zero holds reads nothing else the App is installed on.
    const body = { repositories: [repo.split('/')[1]] };
    const { value } = await jwtClient().json<{ token?: unknown; expires_at?: unknown }>('POST', `/app/installations/${installation}/access_tokens`, body);
    const expiresAt = typeof value.expires_at === 'string' ? Date.parse(value.expires_at) : NaN;
    if (typeof value.token !== 'string' || !value.token || !Number.isFinite(expiresAt)) {
      throw new GitHubRequestError(201, `POST /app/installations/${installation}/access_tokens`, 'the answer holds no token and expiry', 1);
    }
    addLogSecrets([value.token]);
    return { token: value.token, expiresAt };
  };

  const token = async (): Promise<string> => {
    const installation = await installationOf();
    const key = `${appKey}|${installation}|${repo}`;
    const cached = cache.tokens.get(key);
    const current = cached && (await cached.catch(() => undefined));
    if (current && current.expiresAt - RENEW_BEFORE_MS > now()) return current.token;
    // Requests at the same moment share one mint rather than each minting a token.
    let minted = cache.tokens.get(key);
    if (!minted || minted === cached) {
      const fresh = mint(installation);
      cache.tokens.set(key, fresh);
      fresh.catch(() => cache.tokens.get(key) === fresh && cache.tokens.delete(key));
      minted = fresh;
    }
    try {
      return (await minted).token;
    } catch (error) {
      throw appFailure(error, app, repo, field);
    }
  };

  return {
    token,
    /** GitHub refused `stale`: forgotten (with the repository's installation, which may have changed), and a new one minted. */
    async renew(stale: string): Promise<string> {
      for (const [key, minted] of cache.tokens) {
        if ((await minted.catch(() => undefined))?.token === stale) cache.tokens.delete(key);
      }
      cache.installations.delete(repoKey);
      return token();
    },
  };
}

/** Minting failed: said in terms the operator can act on, naming the variables, never the key or a token. */
function appFailure(error: unknown, app: GitHubApp, repo: string, field: string): ZeroError {
  if (ZeroError.isInstance(error)) return error;
  const which = `the GitHub App in ${appIdVariable(app.ref)} (${app.id})`;
  if (!GitHubRequestError.isInstance(error)) return new ZeroError('upstream_error', `minting a token for ${which} failed: ${String((error as Error)?.message ?? error).slice(0, 300)}`);
  switch (error.status) {
    case 401:
      return new ZeroError('invalid_request', `GitHub refused the JWT of ${which}: ${error.githubMessage || 'Bad credentials'} (is ${appKeyVariable(app.ref)} this App's private key, and the server's clock right?)`, { field });
    case 403:
      return new ZeroError('forbidden', `GitHub refused an installation token to ${which}: ${error.githubMessage}`, { field });
    case 404:
      return new ZeroError('not_found', `${which} is not installed on ${repo} (install it on the repository, or name another ${field})`, { field });
    default:
      return new ZeroError('upstream_error', `minting a token for ${which}: ${error.message} (after ${error.attempts} attempt${error.attempts === 1 ? '' : 's'})`);
  }
}
