import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnection, type McpConnectionOptions } from '@zero/integrations/mcp/connection';
import { allowListed, outboundAllowFromEnv, refusedUrl } from '@zero/agent/net/outbound';
import { startTokenEndpoint, startWhoamiServer } from './support/mcp-servers';

const REFRESH = 'refresh-secret-0a1b2c3d4e5f';
const secrets: Record<string, string> = { ZERO_MCP_SECRET_REFRESH: REFRESH };
const options = (overrides: Partial<McpConnectionOptions> = {}): McpConnectionOptions => ({
  outbound: { allow: ['127.0.0.1'] },
  resolveSecret: (name) => secrets[name],
  connectTimeoutMs: 5_000,
  toolsTtlMs: 60_000,
  canSpawn: true,
  ...overrides,
});
const signal = () => new AbortController().signal;

describe('an MCP server behind OAuth (the refresh-token grant)', () => {
  let server: Awaited<ReturnType<typeof startWhoamiServer>>;
  let tokens: Awaited<ReturnType<typeof startTokenEndpoint>>;
  beforeAll(async () => {
    server = await startWhoamiServer();
    tokens = await startTokenEndpoint({ refreshToken: REFRESH, clientId: 'zero', expiresIn: 3600 });
  });
  afterAll(async () => {
    await Promise.all([server.close(), tokens.close()]);
  });

  it('gets a token with the refresh token from secrets, reuses it while valid, and refreshes once on a 401', async () => {
    server.state.token = 'token-1-of-the-endpoint';
    const connection = new McpConnection(
      'guarded',
      { type: 'http', url: server.url, oauth: { token_url: tokens.url, client_id: 'zero', refresh_token: '${ZERO_MCP_SECRET_REFRESH}' } },
      options(),
    );
    try {
      expect((await connection.listTools()).map((t) => t.name)).toEqual(['whoami']);
      const first = await connection.callTool('whoami', {}, signal());
      expect(first.content).toEqual([{ type: 'text', text: 'you sent authorization: Bearer token-1-of-the-endpoint' }]);
      expect(tokens.state.grants).toBe(1);
      expect(tokens.state.forms[0]!.get('refresh_token')).toBe(REFRESH);

      // The server revokes the token: the next request is answered 401, a new token is fetched once, the call goes through.
      server.state.token = 'token-2-of-the-endpoint';
      const second = await connection.callTool('whoami', {}, signal());
      expect(second.content).toEqual([{ type: 'text', text: 'you sent authorization: Bearer token-2-of-the-endpoint' }]);
      expect(tokens.state.grants).toBe(2);
      // What the server says is cleaned of the tokens it was given.
      expect(connection.clean('Bearer token-2-of-the-endpoint and refresh-secret-0a1b2c3d4e5f')).not.toMatch(/token-2|refresh-secret/);

      // A token that still does not work is not refreshed again and again: the call fails, naming no secret.
      server.state.token = 'never-issued';
      const grants = tokens.state.grants;
      await expect(connection.callTool('whoami', {}, signal())).rejects.toThrow();
      expect(tokens.state.grants).toBe(grants + 1);
    } finally {
      await connection.close();
    }
  });

  it('refreshes a token before it expires', async () => {
    const shortLived = await startTokenEndpoint({ refreshToken: REFRESH, clientId: 'zero', expiresIn: 30 });
    server.state.token = undefined;
    const connection = new McpConnection(
      'short',
      { type: 'http', url: server.url, oauth: { token_url: shortLived.url, client_id: 'zero', refresh_token: '${ZERO_MCP_SECRET_REFRESH}' } },
      options(),
    );
    try {
      await connection.callTool('whoami', {}, signal());
      const before = shortLived.state.grants;
      await connection.callTool('whoami', {}, signal());
      // A 30 s token is within the minute before expiry: each request gets a fresh one.
      expect(shortLived.state.grants).toBeGreaterThan(before);
    } finally {
      await connection.close();
      await shortLived.close();
    }
  });

  it('names a missing secret, and sends nothing', async () => {
    const before = server.state.requests;
    const connection = new McpConnection('unset', { type: 'http', url: server.url, headers: { 'X-Key': '${ZERO_MCP_SECRET_MISSING}' } }, options());
    await expect(connection.listTools()).rejects.toThrow('the secret ZERO_MCP_SECRET_MISSING is not set');
    expect(connection.status).toMatchObject({ state: 'error' });
    expect(server.state.requests).toBe(before);
  });
});

describe('where an MCP server may be', () => {
  it("drops its cached tool list when the server says the list changed (notifications/tools/list_changed), long before the cache's time is up", async () => {
    const script = fileURLToPath(new URL('./fixtures/mcp/changing-tools.mjs', import.meta.url));
    const connection = new McpConnection('changing', { type: 'stdio', command: process.execPath, args: [script] }, options({ toolsTtlMs: 10 * 60_000 }));
    try {
      expect((await connection.listTools()).map((t) => t.name)).toEqual(['unlock']);
      expect((await connection.callTool('unlock', {}, signal())).content).toEqual([{ type: 'text', text: 'unlocked' }]);
      let names: string[] = [];
      for (let i = 0; i < 50 && !names.includes('vault'); i++) {
        names = (await connection.listTools()).map((t) => t.name);
        if (!names.includes('vault')) await new Promise((r) => setTimeout(r, 20));
      }
      expect(names).toEqual(['unlock', 'vault']);
      expect((await connection.callTool('vault', {}, signal())).content).toEqual([{ type: 'text', text: 'the vault is open' }]);
    } finally {
      await connection.close();
    }
  });

  it('refuses a stdio server on AWS Lambda, saying why', async () => {
    const connection = new McpConnection('local', { type: 'stdio', command: process.execPath, args: ['-e', ''] }, options({ canSpawn: false }));
    await expect(connection.listTools()).rejects.toThrow(/AWS Lambda cannot start one: declare the server with type http or sse/);
  });

  it('lets the operator allow-list hosts (ZERO_OUTBOUND_ALLOW) by host or host:port, and nothing else', () => {
    const allow = outboundAllowFromEnv(' 127.0.0.1:8080, mcp.internal ,[::1]:9000');
    expect(allow).toEqual(['127.0.0.1:8080', 'mcp.internal', '[::1]:9000']);
    expect(allowListed(new URL('http://127.0.0.1:8080/mcp'), allow)).toBe(true);
    expect(allowListed(new URL('http://127.0.0.1:8081/mcp'), allow)).toBe(false);
    expect(allowListed(new URL('https://mcp.internal/mcp'), allow)).toBe(true);
    expect(allowListed(new URL('http://[::1]:9000/'), allow)).toBe(true);
    expect(refusedUrl(new URL('http://127.0.0.1:8080/mcp'), allow)).toBeUndefined();
    expect(refusedUrl(new URL('http://127.0.0.1:8081/mcp'), allow)).toMatch(/loopback/);
    expect(refusedUrl(new URL('http://169.254.169.254/'), allow)).toMatch(/linkLocal/);
    // Scheme and credentials are checked whatever the list says.
    expect(refusedUrl(new URL('http://user:pw@127.0.0.1:8080/'), allow)).toMatch(/credentials/);
    expect(() => outboundAllowFromEnv('http://x.example.com')).toThrow(/ZERO_OUTBOUND_ALLOW/);
    expect(outboundAllowFromEnv('')).toBeUndefined();
  });
});
