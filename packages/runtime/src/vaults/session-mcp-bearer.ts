import { type SessionVaultServices, sessionCredentials } from './session-credentials';

/** A vault credential's token for one MCP server: sent as `Authorization: Bearer <token>` to that server only. */
export interface McpBearer {
  /** `credential <id> of vault <id>`: how logs and errors name it, never its value. */
  label: string;
  token: string;
}

/** Whether two MCP server URLs name the same endpoint: scheme, host, port, path (a trailing `/` aside) and query. */
export function sameMcpUrl(a: string, b: string): boolean {
  const key = (url: string) => {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  };
  try {
    return key(a) === key(b);
  } catch {
    return false;
  }
}

/**
 * The token of the session's first vault credential (`vault_ids`, in order) bound to the MCP server at
 * `serverUrl`: a `static_bearer`'s token, or an `mcp_oauth`'s access token, whose `mcp_server_url` is
 * that URL. The vaults are read as their owner (the session's creator) holds them now; an archived vault
 * or credential gives nothing; only the credential found is unsealed. Undefined: none is bound to it.
 */
export async function sessionMcpBearer(services: SessionVaultServices, sessionId: string, serverUrl: string): Promise<McpBearer | undefined> {
  for await (const { vaultId, credential, vaults } of sessionCredentials(services, sessionId)) {
    const auth = credential.auth;
    if (auth.type === 'environment_variable' || !sameMcpUrl(auth.mcp_server_url, serverUrl)) continue;
    const secret = await vaults.openSecret(credential);
    const token = auth.type === 'static_bearer' ? secret.token : secret.access_token;
    if (token) return { label: `credential ${credential.id} of vault ${vaultId}`, token };
  }
  return undefined;
}
