import { decode, verify, verifyWithJwks } from 'hono/jwt';
import { defineErrorClass } from '@zero/agent/errors';
import { userIdSchema } from '@zero/agent/wire';
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
  /** User ids that are administrators (a JWT user as `jwt:<sub>`). */
  admins?: string[];
  jwt?: {
    /** HS256 shared secret. */
    secret?: string;
    /** JWKS document for RS256/ES256 tokens. */
    jwksUrl?: string;
    issuer?: string;
    audience?: string;
    /** Longest lifetime a token may claim (`exp` − `iat`, and `exp` − now), in seconds; one day by default. */
    maxLifetimeS?: number;
  };
}

/** JWT users' ids: the token's `sub` under this prefix, so that no issuer can name a key-minted or built-in user. */
export const JWT_USER_PREFIX = 'jwt:';
export const DEFAULT_JWT_MAX_LIFETIME_S = 86_400;
/** A fetched JWKS is kept this long. */
const JWKS_TTL_MS = 600_000;
/** A failed fetch is remembered this long: junk tokens must not make every request ask the JWKS again. */
const JWKS_FAILURE_TTL_MS = 30_000;

/** Why a well-signed JWT is refused, in words the caller may see. */
class JwtRefused extends defineErrorClass('JwtRefused') {}

/**
 * Verifies bearer credentials: API keys (`zk_…`, looked up by hash), static
 * keys from configuration, and JWTs (shared secret or JWKS; the user is
 * `jwt:<sub>`, `name` the display name). Must not throw: a bad credential is
 * undefined (`verify`) or a reason (`check`).
 */
export class Authenticator {
  readonly keys: ApiKeyStore;
  private jwks?: { at: number; keys?: unknown[]; pending?: Promise<unknown[]> };

  constructor(
    sessions: SessionStore,
    private readonly config: AuthConfig,
  ) {
    this.keys = new ApiKeyStore(sessions.db, sessions.table);
  }

  isAdmin(userId: string): boolean {
    return (this.config.admins ?? []).includes(userId) || (this.config.staticKeys ?? []).some((k) => k.user.id === userId);
  }

  /** The caller, or undefined for a bad credential. */
  async verify(token: string): Promise<AuthUser | undefined> {
    const result = await this.check(token);
    return 'user' in result ? result.user : undefined;
  }

  /**
   * The caller, or why the credential is refused. A reason is safe to show:
   * it says what a token lacks (`exp`, a valid `sub`, a short enough life),
   * never which key or secret failed.
   */
  async check(token: string): Promise<{ user: AuthUser } | { reason: string }> {
    const invalid = { reason: 'the credential is invalid, expired or revoked' };
    if (!token || token.length > 8192) return invalid;
    for (const configured of this.config.staticKeys ?? []) {
      if (sameSecret(token, configured.key)) return { user: { ...configured.user, admin: true, via: 'static_key' } };
    }
    if (token.startsWith('zk_')) {
      const info = await this.keys.verify(token).catch(() => undefined);
      if (!info) return invalid;
      return { user: { id: info.user_id, ...(info.name ? { name: info.name } : {}), admin: this.isAdmin(info.user_id), via: 'api_key' } };
    }
    if (token.split('.').length !== 3) return invalid;
    try {
      const user = await this.verifyJwt(token);
      return user ? { user } : invalid;
    } catch (error) {
      return JwtRefused.isInstance(error) ? { reason: `the JWT is refused: ${error.message}` } : invalid;
    }
  }

  private async verifyJwt(token: string): Promise<AuthUser | undefined> {
    const { jwt } = this.config;
    if (!jwt?.secret && !jwt?.jwksUrl) return undefined;
    const verification = { ...(jwt.issuer ? { iss: jwt.issuer } : {}), ...(jwt.audience ? { aud: jwt.audience } : {}) };
    // A token that is not even a JWT costs no JWKS fetch.
    decode(token);
    const payload = jwt.secret
      ? await verify(token, jwt.secret, { alg: 'HS256', ...verification })
      : await verifyWithJwks(token, { keys: (await this.jwksKeys(jwt.jwksUrl!)) as never, verification, allowedAlgorithms: ['RS256', 'ES256', 'EdDSA'] });
    checkLifetime(payload, jwt.maxLifetimeS ?? DEFAULT_JWT_MAX_LIFETIME_S);
    const id = userIdSchema.safeParse(typeof payload.sub === 'string' ? `${JWT_USER_PREFIX}${payload.sub}` : undefined);
    if (!id.success || payload.sub === '') throw new JwtRefused('sub must be a string of at most 196 characters without spaces or "#"');
    const name = typeof payload.name === 'string' ? payload.name.slice(0, 200) : undefined;
    return { id: id.data, ...(name ? { name } : {}), admin: this.isAdmin(id.data), via: 'jwt' };
  }

  /** The JWKS, cached for ten minutes; a failure is cached for 30 s, and concurrent callers share one fetch. */
  private async jwksKeys(url: string): Promise<unknown[]> {
    const cached = this.jwks;
    if (cached?.pending) return cached.pending;
    if (cached && Date.now() - cached.at < (cached.keys ? JWKS_TTL_MS : JWKS_FAILURE_TTL_MS)) {
      if (!cached.keys) throw new Error('the JWKS could not be fetched');
      return cached.keys;
    }
    const pending = fetchJwks(url);
    this.jwks = { at: Date.now(), pending };
    try {
      const keys = await pending;
      this.jwks = { at: Date.now(), keys };
      return keys;
    } catch (error) {
      this.jwks = { at: Date.now() };
      throw error;
    }
  }
}

async function fetchJwks(url: string): Promise<unknown[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`the JWKS answered ${response.status}`);
  const body = (await response.json()) as { keys?: unknown };
  if (!Array.isArray(body.keys)) throw new Error('the JWKS has no "keys" array');
  return body.keys;
}

/** A token must expire, and may not claim to live longer than the configured maximum. */
function checkLifetime(payload: { exp?: unknown; iat?: unknown }, maxLifetimeS: number): void {
  const { exp, iat } = payload;
  if (typeof exp !== 'number') throw new JwtRefused('it has no exp (expiry) claim');
  const now = Math.floor(Date.now() / 1000);
  const lifetime = Math.max(exp - now, typeof iat === 'number' ? exp - iat : 0);
  if (lifetime > maxLifetimeS) throw new JwtRefused(`it lives ${lifetime} s, longer than the maximum of ${maxLifetimeS} s (ZERO_JWT_MAX_LIFETIME_S)`);
}
