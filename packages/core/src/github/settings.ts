import { ZeroError, invalidField } from '../errors';
import { GitHubClient, type GitHubOptions } from './client';

/** The token Zero uses when a request or hook names none: this variable, when it is set. */
export const DEFAULT_GITHUB_TOKEN_REF = 'ZERO_GITHUB_TOKEN';

/** How this deployment reaches GitHub: the API, where token references are looked up, and Zero's own address for links. */
export interface GitHubSettings {
  options: GitHubOptions;
  /** Resolves a token reference (by default: the environment variable of that name). */
  token: (ref: string) => string | undefined;
  /** `ZERO_PUBLIC_URL`: where people open Zero's console; reports on GitHub link to the session there. */
  publicUrl?: string;
}

/**
 * A client with the token `tokenRef` names. A reference that is not set is
 * the operator's mistake, named in a 400; without one, `ZERO_GITHUB_TOKEN`
 * if set, else no token (public repositories only).
 */
export function githubClient(settings: GitHubSettings, tokenRef: string | undefined, field = 'token_ref'): { client: GitHubClient; tokenRef?: string } {
  if (tokenRef) {
    const token = settings.token(tokenRef);
    if (!token) throw new ZeroError('invalid_request', `${field}: ${tokenRef} is not set in the server's environment`, { field });
    return { client: new GitHubClient(token, settings.options), tokenRef };
  }
  const fallback = settings.token(DEFAULT_GITHUB_TOKEN_REF);
  return { client: new GitHubClient(fallback, settings.options), ...(fallback ? { tokenRef: DEFAULT_GITHUB_TOKEN_REF } : {}) };
}

/** The session's address in the console, when the deployment says where that is. */
export function sessionLink(settings: GitHubSettings, sessionId: string): string | undefined {
  return settings.publicUrl ? `${settings.publicUrl.replace(/\/+$/, '')}/#/s/${encodeURIComponent(sessionId)}` : undefined;
}

/** A hook's GitHub fields make sense: hydrate and report need a GitHub hook, and a token reference must be set. Throws a 400 naming the field. */
export function checkGitHubHook(settings: GitHubSettings, hook: { source: string; hydrate?: boolean; report?: unknown; github_token_ref?: string }): void {
  if (hook.source !== 'github' && (hook.hydrate || hook.report)) {
    throw invalidField(hook.hydrate ? 'hydrate' : 'report', 'needs a GitHub hook ("source": "github")');
  }
  if (hook.github_token_ref && !settings.token(hook.github_token_ref)) {
    throw invalidField('github_token_ref', `${hook.github_token_ref} is not set in the server's environment`);
  }
}
