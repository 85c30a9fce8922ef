import { ZeroError, defineErrorClass } from '@zero/agent/errors';
import type { OutboundOptions } from '@zero/agent/net/outbound';

/** How GitHub is reached: its API's address (GitHub Enterprise: `https://host/api/v3`), retries, and the outbound guard's options. */
export interface GitHubOptions extends OutboundOptions {
  /** `ZERO_GITHUB_API_URL`; by default https://api.github.com. */
  apiUrl?: string;
  /** Attempts in all for a request GitHub answers 429 or 5xx, or that fails on the network (default 4). */
  attempts?: number;
  /** Wait before the second attempt, doubled for each further one (default 1000 ms). */
  retryBaseMs?: number;
  /** Time one request may take (default 30 s; a tarball gets four times that). */
  timeoutMs?: number;
  /** The clock a GitHub App's JWT and its tokens' expiry are read by (tests move it). */
  now?: () => number;
}

/**
 * Credentials that change: a GitHub App installation's token, minted on first
 * use and again when it nears its expiry. `renew` is asked once when GitHub
 * refuses the token given (401) and answers a fresh one.
 */
export interface GitHubCredentials {
  token(): Promise<string>;
  renew(stale: string): Promise<string>;
}

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** A GitHub request that failed: its status (0 on the network) and GitHub's message. Never carries the token. */
export class GitHubRequestError extends defineErrorClass('GitHubRequestError') {
  constructor(
    readonly status: number,
    readonly what: string,
    readonly githubMessage: string,
    readonly attempts: number,
  ) {
    super(`GitHub answered ${status || 'nothing'} to ${what}${githubMessage ? `: ${githubMessage}` : ''}`);
  }
}

interface GitHubRequestInit {
  accept?: string;
  body?: unknown;
  maxBytes?: number;
  timeoutMs?: number;
}

/** A response from GitHub, read under the caps. */
export interface GitHubResponse {
  status: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
  attempts: number;
}

/**
 * Zero's one way to GitHub's REST API: every request (and the tarball's
 * redirect to GitHub's download host) goes through the outbound guard, the
 * token is sent only to the API's origin (the guard drops it on a redirect
 * elsewhere), and 429, 5xx and network failures are retried with backoff.
 */
export class GitHubClient {
  readonly apiUrl: string;

  constructor(
    private readonly credentials: string | GitHubCredentials | undefined,
    private readonly options: GitHubOptions = {},
  ) {
    this.apiUrl = (options.apiUrl ?? DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
  }

  /**
   * Sends one request; a status outside 2xx after the retries throws a
   * GitHubRequestError. `path` starts with `/repos/…`.
   */
  async request(method: 'GET' | 'POST' | 'PATCH', path: string, init: GitHubRequestInit = {}): Promise<GitHubResponse> {
    const credentials = this.credentials;
    if (typeof credentials !== 'object') return this.send(method, path, init, credentials);
    const token = await credentials.token();
    try {
      return await this.send(method, path, init, token);
    } catch (error) {
      // A minted token GitHub no longer takes (revoked, or the clocks disagree on its expiry): one fresh one, one more try.
      if (!GitHubRequestError.isInstance(error) || error.status !== 401) throw error;
      return this.send(method, path, init, await credentials.renew(token));
    }
  }

  private async send(method: 'GET' | 'POST' | 'PATCH', path: string, init: GitHubRequestInit, token: string | undefined): Promise<GitHubResponse> {
    const { guardedFetch, OutboundBlockedError } = await import('@zero/agent/net/outbound');
    const attempts = this.options.attempts ?? 4;
    const what = `${method} ${path.split('?')[0]}`;
    let last = new GitHubRequestError(0, what, '', 0);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let retry: boolean;
      try {
        const response = await guardedFetch(`${this.apiUrl}${path}`, {
          ...this.options,
          method,
          maxBytes: init.maxBytes ?? 5 * 1024 * 1024,
          timeoutMs: init.timeoutMs ?? this.options.timeoutMs ?? 30_000,
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          headers: {
            accept: init.accept ?? 'application/vnd.github+json',
            'user-agent': 'Zero-GitHub/1',
            'x-github-api-version': '2022-11-28',
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        });
        if (response.truncated) throw new ZeroError('payload_too_large', `GitHub's answer to ${what} is over ${init.maxBytes ?? 5 * 1024 * 1024} bytes`, { limit: init.maxBytes });
        if (response.status >= 200 && response.status < 300) return { status: response.status, body: response.body, headers: response.headers, attempts: attempt };
        last = new GitHubRequestError(response.status, what, messageOf(response.body), attempt);
        retry = response.status === 429 || response.status >= 500;
      } catch (error) {
        if (ZeroError.isInstance(error)) throw error;
        retry = !OutboundBlockedError.isInstance(error);
        // A download URL GitHub redirects to carries a short-lived token in its query: never shown.
        last = new GitHubRequestError(0, what, String((error as Error)?.message ?? error).replace(/token=[^&\s"]+/g, 'token=…').slice(0, 300), attempt);
      }
      if (!retry) break;
      if (attempt < attempts) await new Promise((r) => setTimeout(r, (this.options.retryBaseMs ?? 1000) * 2 ** (attempt - 1)));
    }
    throw last;
  }

  async json<T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<{ value: T; headers: GitHubResponse['headers']; attempts: number }> {
    const response = await this.request(method, path, { body });
    try {
      return { value: JSON.parse(response.body.toString('utf8')) as T, headers: response.headers, attempts: response.attempts };
    } catch {
      throw new GitHubRequestError(response.status, `${method} ${path}`, 'the answer is not JSON', response.attempts);
    }
  }
}

/** `owner/repo` as a URL path, each part encoded. */
export function repoPath(fullName: string): string {
  const [owner, repo] = fullName.split('/');
  return `/repos/${encodeURIComponent(owner!)}/${encodeURIComponent(repo!)}`;
}

/** GitHub's `message` field, cut short: it is shown in summaries and errors. */
function messageOf(body: Buffer): string {
  try {
    const value = JSON.parse(body.toString('utf8')) as { message?: unknown };
    return typeof value.message === 'string' ? value.message.slice(0, 300) : '';
  } catch {
    return body.toString('utf8').slice(0, 200);
  }
}
