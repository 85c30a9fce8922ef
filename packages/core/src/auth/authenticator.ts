import { verify, verifyWithJwks } from 'hono/jwt';
import type { SessionStore } from '../store/session-store';
import { ApiKeyStore, sameSecret } from './api-keys';

/** A verified caller. */
export interface AuthUser {
  id: string;
  name?: string;
  /** May create keys for other users. */
  admin: boolean;
  via: 'api_key' | 'jwt' | 'static_key';
}

export interface AuthConfig {
  /** Keys configured at start-up (the local dev key, a bootstrap admin key), by user. */
  staticKeys?: { key: string; user: { id: string; name?: string } }[];
  /** User ids that are administrators. */
  admins?: string[];
  jwt?: {
    /** HS256 shared secret. */
    secret?: string;
    /** JWKS document for RS256/ES256 tokens. */
    jwksUrl?: string;
    issuer?: string;
    audience?: string;
  };
}

/**
 * Verifies bearer credentials: API keys (`zk_…`, looked up by hash), static
 * keys from configuration, and JWTs (shared secret or JWKS; `sub` is the user
 * id, `name` the display name). Must not throw: a bad credential is undefined.
 */
export class Authenticator {
  readonly keys: ApiKeyStore;
  private jwks?: { at: number; keys: unknown[] };

  constructor(
    sessions: SessionStore,
    private readonly config: AuthConfig,
  ) {
    this.keys = new ApiKeyStore(sessions.db, sessions.table);
  }

  isAdmin(userId: string): boolean {
    return (this.config.admins ?? []).includes(userId) || (this.config.staticKeys ?? []).some((k) => k.user.id === userId);
  }

  async verify(token: string): Promise<AuthUser | undefined> {
    if (!token || token.length > 8192) return undefined;
    for (const configured of this.config.staticKeys ?? []) {
      if (sameSecret(token, configured.key)) return { ...configured.user, admin: true, via: 'static_key' };
    }
    if (token.startsWith('zk_')) {
      const info = await this.keys.verify(token).catch(() => undefined);
      return info ? { id: info.user_id, ...(info.name ? { name: info.name } : {}), admin: this.isAdmin(info.user_id), via: 'api_key' } : undefined;
    }
    if (token.split('.').length === 3) return this.verifyJwt(token);
    return undefined;
  }

  private async verifyJwt(token: string): Promise<AuthUser | undefined> {
    const { jwt } = this.config;
    if (!jwt?.secret && !jwt?.jwksUrl) return undefined;
    const verification = { ...(jwt.issuer ? { iss: jwt.issuer } : {}), ...(jwt.audience ? { aud: jwt.audience } : {}) };
    try {
      const payload = jwt.secret
        ? await verify(token, jwt.secret, { alg: 'HS256', ...verification })
        : await verifyWithJwks(token, { keys: (await this.jwksKeys()) as never, verification, allowedAlgorithms: ['RS256', 'ES256', 'EdDSA'] });
      const sub = payload.sub;
      if (typeof sub !== 'string' || !sub || sub.length > 200) return undefined;
      const name = typeof payload.name === 'string' ? payload.name.slice(0, 200) : undefined;
      return { id: sub, ...(name ? { name } : {}), admin: this.isAdmin(sub), via: 'jwt' };
    } catch {
      return undefined;
    }
  }

  /** The JWKS, cached for ten minutes. */
  private async jwksKeys(): Promise<unknown[]> {
    if (this.jwks && Date.now() - this.jwks.at < 600_000) return this.jwks.keys;
    const response = await fetch(this.config.jwt!.jwksUrl!, { signal: AbortSignal.timeout(5000) });
    const body = (await response.json()) as { keys?: unknown[] };
    this.jwks = { at: Date.now(), keys: Array.isArray(body.keys) ? body.keys : [] };
    return this.jwks.keys;
  }
}
