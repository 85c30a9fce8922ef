import type { FetchedResponse, OutboundOptions } from '@zero/agent/net/outbound';
import { invalidField } from '@zero/agent/errors';
import { SecretScrubber } from '@zero/agent/loop/secret-scrubber';
import type { CredentialRecord, CredentialSecret, VaultStore } from '@zero/runtime/vaults/vault-store';

/** `BetaManagedAgentsRefreshHTTPResponse`: a captured answer, its body scrubbed of the credential's secrets and cut. */
interface CapturedResponse {
  status_code: number;
  content_type: string;
  body: string;
  body_truncated: boolean;
}

const MAX_BODY_CHARS = 4096;
const TIMEOUT_MS = 10_000;

function capture(response: FetchedResponse, scrubber: SecretScrubber): CapturedResponse {
  const text = scrubber.scrub(response.body.toString('utf8'));
  return { status_code: response.status, content_type: response.contentType, body: text.slice(0, MAX_BODY_CHARS), body_truncated: text.length > MAX_BODY_CHARS || response.truncated };
}

/** MCP's `initialize`, sent with the token: 2xx means the server took it, 401/403 that it did not. */
async function probe(url: string, token: string, outbound: OutboundOptions): Promise<FetchedResponse> {
  const { guardedFetch } = await import('@zero/agent/net/outbound');
  return guardedFetch(url, {
    ...outbound,
    method: 'POST',
    maxBytes: 64 * 1024,
    timeoutMs: TIMEOUT_MS,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'zero-credential-check', version: '1' } } }),
  });
}

/** The OAuth refresh-token grant at the credential's token endpoint, with its client authentication. */
async function refresh(credential: CredentialRecord, secret: CredentialSecret, outbound: OutboundOptions): Promise<FetchedResponse> {
  const auth = credential.auth;
  if (auth.type !== 'mcp_oauth' || !auth.refresh) throw new Error('no refresh settings');
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: secret.refresh_token ?? '', client_id: auth.refresh.client_id });
  if (auth.refresh.scope) form.set('scope', auth.refresh.scope);
  if (auth.refresh.resource) form.set('resource', auth.refresh.resource);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (auth.refresh.token_endpoint_auth.type === 'client_secret_post') form.set('client_secret', secret.client_secret ?? '');
  if (auth.refresh.token_endpoint_auth.type === 'client_secret_basic') {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(auth.refresh.client_id)}:${encodeURIComponent(secret.client_secret ?? '')}`).toString('base64')}`;
  }
  const { guardedFetch } = await import('@zero/agent/net/outbound');
  return guardedFetch(auth.refresh.token_endpoint, { ...outbound, method: 'POST', maxBytes: 64 * 1024, timeoutMs: TIMEOUT_MS, headers, body: form.toString() });
}

/**
 * `mcpOAuthValidate`: probes the credential's MCP server with its access token (through the
 * outbound guard); on a 401 or 403 with a refresh token stored, exchanges it at the token endpoint,
 * keeps the new tokens (sealed) and probes again. Answers `BetaManagedAgentsCredentialValidation`;
 * every captured body is scrubbed of the credential's secrets, old and new.
 */
export async function validateMcpCredential(vaults: VaultStore, owner: string, credential: CredentialRecord, outbound: OutboundOptions) {
  const auth = credential.auth;
  if (auth.type === 'environment_variable') throw invalidField('credential_id', 'is an environment_variable credential: only MCP credentials (mcp_oauth, static_bearer) are validated');
  const secret = await vaults.openSecret(credential);
  const scrubber = new SecretScrubber();
  for (const value of [secret.access_token, secret.token, secret.refresh_token, secret.client_secret]) if (value) scrubber.add(value);
  const token = (secret.access_token ?? secret.token)!;
  const hasRefresh = auth.type === 'mcp_oauth' && !!auth.refresh && !!secret.refresh_token;
  const answer = (status: 'valid' | 'invalid' | 'unknown', mcp_probe: { method: string; http_response: CapturedResponse | null } | null, refreshed: { status: string; http_response: CapturedResponse | null } | null) => ({
    type: 'vault_credential_validation' as const,
    credential_id: credential.id,
    vault_id: credential.vault_id,
    has_refresh_token: hasRefresh,
    status,
    mcp_probe,
    refresh: refreshed,
    validated_at: new Date().toISOString(),
  });

  const first = await probe(auth.mcp_server_url, token, outbound).catch(() => undefined);
  if (!first) return answer('unknown', { method: 'initialize', http_response: null }, null);
  if (first.status < 300) return answer('valid', null, null);
  const failed = { method: 'initialize', http_response: capture(first, scrubber) };
  if (first.status !== 401 && first.status !== 403) return answer('unknown', failed, null);
  if (!hasRefresh) return answer('invalid', failed, { status: 'no_refresh_token', http_response: null });

  const exchanged = await refresh(credential, secret, outbound).catch(() => undefined);
  if (!exchanged) return answer('unknown', failed, { status: 'connect_error', http_response: null });
  let tokens: { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown } = {};
  try {
    tokens = JSON.parse(exchanged.body.toString('utf8')) as typeof tokens;
  } catch {
    tokens = {};
  }
  if (exchanged.status >= 300 || typeof tokens.access_token !== 'string' || !tokens.access_token) {
    return answer('invalid', failed, { status: 'failed', http_response: capture(exchanged, scrubber) });
  }
  const next: CredentialSecret = { ...secret, access_token: tokens.access_token, ...(typeof tokens.refresh_token === 'string' && tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}) };
  scrubber.add(tokens.access_token);
  const expiresAt = typeof tokens.expires_in === 'number' ? new Date(Date.now() + tokens.expires_in * 1000).toISOString() : null;
  const now = new Date().toISOString();
  await vaults.putCredential(owner, { ...credential, auth: { ...auth, expires_at: expiresAt }, updated_at: now }, next);
  const second = await probe(auth.mcp_server_url, tokens.access_token, outbound).catch(() => undefined);
  const succeeded = { status: 'succeeded', http_response: null };
  if (!second) return answer('unknown', { method: 'initialize', http_response: null }, succeeded);
  if (second.status < 300) return answer('valid', null, succeeded);
  return answer(second.status === 401 || second.status === 403 ? 'invalid' : 'unknown', { method: 'initialize', http_response: capture(second, scrubber) }, succeeded);
}
