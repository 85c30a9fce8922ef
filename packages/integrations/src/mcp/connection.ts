import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { GuardedFetch, OutboundOptions } from '@zero/agent/net/outbound';
import { redact } from '@zero/agent/log/redact';
import { SecretScrubber } from '@zero/agent/loop/secret-scrubber';
import type { McpServerConfig, McpServerView } from '@zero/agent/wire/mcp-servers';
import { RefreshTokenGrant } from './oauth';
import { fillSecrets, referencedSecrets, type McpSecretResolver } from './secrets';

export type McpStatus = McpServerView['status'];

/** How connections to MCP servers behave; one set per runtime. */
export interface McpConnectionOptions {
  /** The outbound guard's settings: every server URL and token endpoint passes it. */
  outbound: OutboundOptions;
  resolveSecret: McpSecretResolver;
  /** Longest wait for a server to answer `initialize`, a tool listing or a token refresh. */
  connectTimeoutMs: number;
  /** How long a listing of a server's tools is reused by this warm instance (a `tools/list_changed` ends it sooner). */
  toolsTtlMs: number;
  /** False on AWS Lambda: a stdio server, a process Zero would start, is refused. */
  canSpawn: boolean;
}

interface Session {
  client: Client;
  transport: Transport & { sessionId?: string };
  close(): Promise<void>;
}

/** Long enough for the SDK's own timer never to strike first: a call is bounded by the run's tool timeout (its signal). */
const CALL_TIMEOUT_MS = 30 * 60_000;
const MAX_TOOL_PAGES = 20;

/**
 * One MCP server as seen from this instance: its session (kept across
 * invocations while the instance is warm), its tool list (cached with a TTL,
 * dropped on `notifications/tools/list_changed`) and what was last seen of it.
 * A request the server refuses because it no longer knows the session (404,
 * or the 400 some servers answer, after a restart) re-initialises once.
 */
export class McpConnection {
  status: McpStatus = { state: 'not_connected' };
  /** Secret values sent to this server and tokens received for it: scrubbed, in every form the scrubber knows, from whatever it returns. */
  readonly secrets = new SecretScrubber();
  private session?: Promise<Session>;
  private tools?: { list: Tool[]; at: number };

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    // Known from the start, not only once they are sent: nothing the server says is seen unscrubbed.
    for (const secret of referencedSecrets(config)) this.secrets.add(options.resolveSecret(secret) ?? '', secret);
  }

  /** The server's tools, from this instance's cache while it is fresh. A server that cannot be reached throws, unless a stale list is at hand. */
  async listTools(): Promise<Tool[]> {
    if (this.tools && Date.now() - this.tools.at < this.options.toolsTtlMs) return this.tools.list;
    try {
      const list = await this.withSession(async (client) => {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_TOOL_PAGES; page++) {
          const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.options.connectTimeoutMs });
          tools.push(...result.tools);
          cursor = result.nextCursor;
          if (!cursor) break;
        }
        return tools;
      });
      this.tools = { list, at: Date.now() };
      this.status = { state: 'connected', at: new Date().toISOString(), tools: list.length };
      return list;
    } catch (error) {
      this.failed(error);
      if (this.tools) return this.tools.list;
      throw new Error(this.status.message);
    }
  }

  /** Calls a tool. Throws (a message cleaned of secrets) when the server cannot be reached or fails the request. */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    try {
      const result = await this.withSession((client) => client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS }));
      this.status = { ...this.status, state: 'connected', at: new Date().toISOString(), message: undefined };
      return result as CallToolResult;
    } catch (error) {
      this.failed(error);
      throw new Error(this.status.message);
    }
  }

  /** Text from or about the server with every secret it was sent, and every token it was given, replaced. */
  clean(text: string): string {
    return redact(this.secrets.scrub(text), []);
  }

  /** A JSON value from the server (a tool's input schema) with every string in it cleaned. */
  cleanJson<T>(value: T): T {
    return this.secrets.scrubJson(value);
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.then((s) => s.close()).catch(() => undefined);
  }

  private failed(error: unknown): void {
    const message = this.clean(error instanceof Error ? error.message : String(error));
    this.status = { ...this.status, state: 'error', at: new Date().toISOString(), message };
  }

  /** Runs `request` in the session, opening one if needed; once more in a new session when the server has forgotten this one. */
  private async withSession<T>(request: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const pending = (this.session ??= this.open());
      let session: Session;
      try {
        session = await pending;
      } catch (error) {
        if (this.session === pending) this.session = undefined;
        throw error;
      }
      try {
        return await request(session.client);
      } catch (error) {
        if (attempt > 1 || !(await isStaleSession(error, session))) throw error;
        if (this.session === pending) this.session = undefined;
        await session.close().catch(() => undefined);
      }
    }
  }

  private async open(): Promise<Session> {
    const config = this.config;
    if (config.type === 'stdio' && !this.options.canSpawn) {
      throw new Error('a stdio MCP server is a process Zero starts, and AWS Lambda cannot start one: declare the server with type http or sse, or run Zero with npm start');
    }
    const [{ Client }, { ToolListChangedNotificationSchema }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const client = new Client({ name: 'zero', version: '1.0.0' }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.tools = undefined;
    });
    let transport: Session['transport'];
    let guarded: (GuardedFetch & { close(): Promise<void> }) | undefined;
    if (config.type === 'stdio') {
      const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const env = Object.fromEntries(Object.entries(config.env ?? {}).map(([key, value]) => [key, fillSecrets(value, this.options.resolveSecret, this.secrets)]));
      // Its stderr is dropped: a server may print what it was given there.
      transport = new StdioClientTransport({ command: config.command, args: config.args, env: { ...getDefaultEnvironment(), ...env }, stderr: 'ignore' });
    } else {
      // The outbound guard (address parsing, undici) loads with the first remote server, off the cold start.
      const { createGuardedFetch } = await import('@zero/agent/net/outbound');
      guarded = await createGuardedFetch(this.options.outbound);
      const fetch = this.authorized(config, guarded);
      const url = new URL(config.url);
      if (config.type === 'sse') {
        const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
        transport = new SSEClientTransport(url, { fetch });
      } else {
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        transport = new StreamableHTTPClientTransport(url, { fetch });
      }
    }
    const close = async () => {
      await client.close().catch(() => undefined);
      await guarded?.close();
    };
    // Transport errors (a dropped notification stream) are seen by the request that needs the server next.
    client.onerror = () => undefined;
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    } catch (error) {
      await close();
      throw error;
    }
    return { client, transport, close };
  }

  /** The server's fetch: its headers with their secrets filled (now, never earlier), and an OAuth token refreshed once on a 401. */
  private authorized(config: Extract<McpServerConfig, { type: 'http' | 'sse' }>, guarded: GuardedFetch): GuardedFetch {
    const headers = Object.entries(config.headers ?? {}).map(([name, value]) => [name, fillSecrets(value, this.options.resolveSecret, this.secrets)] as const);
    const grant = config.oauth && new RefreshTokenGrant(config.oauth, this.options.resolveSecret, this.secrets, guarded, this.options.connectTimeoutMs);
    const send = (url: string | URL, init: RequestInit | undefined, token: string | undefined) => {
      const merged = new Headers(init?.headers);
      for (const [name, value] of headers) merged.set(name, value);
      if (token) merged.set('authorization', `Bearer ${token}`);
      return guarded(url, { ...init, headers: merged });
    };
    return async (url, init) => {
      const response = await send(url, init, grant ? await grant.token() : undefined);
      if (response.status !== 401 || !grant) return response;
      await response.body?.cancel().catch(() => undefined);
      grant.invalidate();
      return send(url, init, await grant.token());
    };
  }
}

/** The server no longer knows the session (it restarted, or expired it): 404 as the spec says, or 400 as some servers answer. */
async function isStaleSession(error: unknown, session: Session): Promise<boolean> {
  if (!session.transport.sessionId) return false;
  const { StreamableHTTPError } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400);
}
