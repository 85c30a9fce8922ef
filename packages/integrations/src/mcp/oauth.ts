import * as z from 'zod';
import type { GuardedFetch } from '@zero/agent/net/outbound';
import type { McpServerConfig } from '@zero/agent/wire/mcp-servers';
import { fillSecrets, type McpSecretResolver, type SecretSink } from './secrets';

type OAuthConfig = NonNullable<Extract<McpServerConfig, { type: 'http' | 'sse' }>['oauth']>;

const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
});

/** A token is refreshed this long before it expires, so that no call carries one that lapses on the way. */
const EARLY_MS = 60_000;
/** Used when the token endpoint does not say how long its token lasts. */
const DEFAULT_LIFETIME_MS = 10 * 60_000;

/**
 * OAuth's refresh-token grant for one server: the refresh token and client
 * secret come from secrets; the access token is kept for this warm instance,
 * refreshed before it expires and once when the server answers 401. A token
 * endpoint that rotates refresh tokens has the new one kept here, in memory
 * only (Zero stores no credential).
 */
export class RefreshTokenGrant {
  private current?: { token: string; expiresAt: number };
  private pending?: Promise<string>;
  private rotated?: string;

  constructor(
    private readonly config: OAuthConfig,
    private readonly resolve: McpSecretResolver,
    /** Values resolved and received, cleaned from anything the server sends back. */
    private readonly secrets: SecretSink,
    private readonly fetch: GuardedFetch,
    private readonly timeoutMs: number,
  ) {}

  /** A valid access token, refreshed first when it is about to expire. */
  async token(): Promise<string> {
    if (this.current && this.current.expiresAt - EARLY_MS > Date.now()) return this.current.token;
    this.pending ??= this.refresh().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** The server refused the token (401): the next `token()` asks for a new one. */
  invalidate(): void {
    this.current = undefined;
  }

  private async refresh(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: this.rotated ?? fillSecrets(this.config.refresh_token, this.resolve, this.secrets),
      client_id: this.config.client_id,
    });
    if (this.config.client_secret) form.set('client_secret', fillSecrets(this.config.client_secret, this.resolve, this.secrets));
    if (this.config.scope) form.set('scope', this.config.scope);
    const response = await this.fetch(this.config.token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      // Only the OAuth error code is repeated: the body of a failed grant may echo what was sent.
      const code = typeof (body as { error?: unknown })?.error === 'string' ? `: ${(body as { error: string }).error}` : '';
      throw new Error(`the OAuth token endpoint refused the refresh (HTTP ${response.status}${code})`);
    }
    const parsed = tokenResponseSchema.safeParse(body);
    if (!parsed.success) throw new Error('the OAuth token endpoint answered without an access_token');
    const { access_token, expires_in, refresh_token } = parsed.data;
    this.secrets.add(access_token);
    if (refresh_token) {
      this.secrets.add(refresh_token);
      this.rotated = refresh_token;
    }
    this.current = { token: access_token, expiresAt: Date.now() + (expires_in ? expires_in * 1000 : DEFAULT_LIFETIME_MS) };
    return access_token;
  }
}
