import { ZeroError, invalidField } from '@zero/agent/errors';
import { appIdVariable, installationCredentials, isAppRef, loadApp, newTokenCache, type InstallationTokenCache } from './app';
import { GitHubClient, type GitHubOptions } from './client';

/** The token Zero uses when a request or hook names none and the deployment has no App: this variable, when it is set. */
export const DEFAULT_GITHUB_TOKEN_REF = 'ZERO_GITHUB_TOKEN';
/** The deployment's GitHub App, when `ZERO_GITHUB_APP_ID` is set: used before `ZERO_GITHUB_TOKEN` when nothing is named. */
export const DEFAULT_GITHUB_APP_REF = 'ZERO_GITHUB_APP';

/** How this deployment reaches GitHub: the API, where token references are looked up, and Zero's own address for links. */
export interface GitHubSettings {
  options: GitHubOptions;
  /** Resolves a token reference, or an App's `…_ID` and `…_PRIVATE_KEY` (by default: the environment variable of that name). */
  token: (ref: string) => string | undefined;
  /** `ZERO_PUBLIC_URL`: where people open Zero's console; reports on GitHub link to the session there. */
  publicUrl?: string;
}

/** The warm instance's minted installation tokens, one cache per runtime's settings. */
const tokenCaches = new WeakMap<GitHubSettings, InstallationTokenCache>();

/** The reference used when none is named: the deployment's App if it has one, else `ZERO_GITHUB_TOKEN` if set, else none. */
function defaultRef(settings: GitHubSettings): string | undefined {
  if (settings.token(appIdVariable(DEFAULT_GITHUB_APP_REF))) return DEFAULT_GITHUB_APP_REF;
  return settings.token(DEFAULT_GITHUB_TOKEN_REF) ? DEFAULT_GITHUB_TOKEN_REF : undefined;
}

/**
 * A client for `repo` with the credentials `tokenRef` names: a token's
 * variable, or a GitHub App (`ZERO_GITHUB_APP…`) whose installation token is
 * minted when first needed. A reference that is not set, or an App whose key
 * cannot be read, is the operator's mistake, named in a 400 now; without a
 * reference, the deployment's default (see defaultRef), else no token
 * (public repositories only).
 */
export function githubClient(settings: GitHubSettings, tokenRef: string | undefined, repo: string, field = 'token_ref'): { client: GitHubClient; tokenRef?: string } {
  const ref = tokenRef ?? defaultRef(settings);
  if (!ref) return { client: new GitHubClient(undefined, settings.options) };
  if (isAppRef(ref)) {
    const app = loadApp(settings.token, ref, field);
    let cache = tokenCaches.get(settings);
    if (!cache) tokenCaches.set(settings, (cache = newTokenCache()));
    return { client: new GitHubClient(installationCredentials(app, repo, settings.options, cache, field), settings.options), tokenRef: ref };
  }
  const token = settings.token(ref);
  if (!token) throw new ZeroError('invalid_request', `${field}: ${ref} is not set in the server's environment`, { field });
  return { client: new GitHubClient(token, settings.options), tokenRef: ref };
}

/** The session's address in the console, when the deployment says where that is. */
export function sessionLink(settings: GitHubSettings, sessionId: string): string | undefined {
  return settings.publicUrl ? `${settings.publicUrl.replace(/\/+$/, '')}/#/s/${encodeURIComponent(sessionId)}` : undefined;
}

/**
 * A hook's GitHub fields make sense: hydrate and report need a GitHub hook,
 * and the credentials it would use (named, or the deployment's App) must be
 * set and readable. Throws a 400 naming the field.
 */
export function checkGitHubHook(settings: GitHubSettings, hook: { source: string; hydrate?: boolean; report?: unknown; github_token_ref?: string }): void {
  if (hook.source !== 'github' && (hook.hydrate || hook.report)) {
    throw invalidField(hook.hydrate ? 'hydrate' : 'report', 'needs a GitHub hook ("source": "github")');
  }
  const ref = hook.github_token_ref ?? defaultRef(settings);
  if (ref && isAppRef(ref)) loadApp(settings.token, ref, 'github_token_ref');
  else if (hook.github_token_ref && !settings.token(hook.github_token_ref)) {
    throw invalidField('github_token_ref', `${hook.github_token_ref} is not set in the server's environment`);
  }
}
