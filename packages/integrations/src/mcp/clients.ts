import type picomatchModule from 'picomatch';
import * as z from 'zod';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { AgentToolSource, ToolSpec } from '@zero/runtime/tools/tool';
import { createHash } from 'node:crypto';
import { MCP_SECRET_PREFIX, type McpServerConfig, type McpServerView } from '@zero/agent/wire/mcp-servers';
import type { McpBearer } from '@zero/runtime/vaults/session-mcp-bearer';
import type { McpConnection, McpConnectionOptions, McpStatus } from './connection';
import { referencedSecrets } from './secrets';
import type { McpServerStore } from './server-store';
import { log } from '@zero/agent/log/log';
import { mcpToolName } from './tool-name';

// The connection (and the MCP SDK behind it) and the result mapping load with the first MCP server used, not at cold start.
let connectionModule: Promise<typeof import('./connection')> | undefined;
let resultModule: Promise<typeof import('./tool-result')> | undefined;

/** A server an agent may use, and where it was declared. */
export interface AgentServer {
  name: string;
  config: McpServerConfig;
  source: 'agent' | 'deployment';
}

const MAX_DESCRIPTION = 4000;
/** How long this instance reuses the list of deployment-wide servers (a change made through this instance applies at once). */
const DEPLOYMENT_LIST_TTL_MS = 5_000;

export { mcpToolName } from './tool-name';

/**
 * The MCP servers of a deployment as this warm instance knows them: one
 * connection per server definition (its session and tool list reused across
 * invocations), the tools each agent may use as Zero tools named
 * `mcp__<server>__<tool>`, and what was last seen of each server.
 */
export class McpClients implements AgentToolSource {
  private readonly connections = new Map<string, McpConnection>();
  private deployment?: { at: number; servers: Promise<AgentServer[]> };

  constructor(
    readonly store: McpServerStore,
    private readonly options: McpConnectionOptions & {
      /** The session's vault credential bound to a server's URL, if any (see runtime's vaults/session-mcp-bearer.ts). */
      bearerFor?: (sessionId: string, url: string) => Promise<McpBearer | undefined>;
    },
  ) {}

  /** Whether a secret a server references is set (its value never leaves here). */
  hasSecret(name: string): boolean {
    return !!this.options.resolveSecret(name);
  }

  /** Why the outbound guard refuses a server's URL before any request, or undefined. */
  async refusedUrl(url: string): Promise<string | undefined> {
    const { refusedUrl } = await import('@zero/agent/net/outbound');
    return refusedUrl(new URL(url), this.options.outbound.allow);
  }

  /** Forgets the deployment-wide list, after an administrator changed it. */
  deploymentChanged(): void {
    this.deployment = undefined;
  }

  /** The servers an agent may use: the file's own, then the deployment-wide ones (a file's definition wins a clash of names). */
  async serversFor(agent: Pick<AgentDefinition, 'mcp'>): Promise<AgentServer[]> {
    if (!agent.mcp) return [];
    const own = Object.entries(agent.mcp.servers).map(([name, config]) => ({ name, config, source: 'agent' as const }));
    const deployment = (await this.deploymentServers()).filter((server) => !(server.name in agent.mcp!.servers));
    return [...own, ...deployment];
  }

  /** The agent's granted MCP tools, listed by their servers (cached per instance). Never throws: a server that cannot be reached adds none. */
  async toolsFor(agent: AgentDefinition, run?: { sessionId: string }): Promise<ToolSpec<any>[]> {
    const grants = agent.mcp;
    if (!grants || grants.tools.length === 0) return [];
    // The glob library loads with the first run that has MCP grants, not at cold start.
    const picomatch: typeof picomatchModule = (await import('picomatch')).default;
    const granted = picomatch(grants.tools);
    const removed = grants.disallowed.length ? picomatch(grants.disallowed) : () => false;
    let servers: AgentServer[];
    try {
      servers = await this.serversFor(agent);
    } catch (error) {
      log.error('the deployment-wide MCP servers could not be read', { error: (error as Error).message });
      servers = Object.entries(grants.servers).map(([name, config]) => ({ name, config, source: 'agent' as const }));
    }
    const lists = await Promise.all(
      servers.map(async (server) => {
        const connection = await this.connection(server, run && (await this.bearer(server, run.sessionId)));
        const tools = await connection.listTools().catch(() => []);
        return tools.flatMap((tool) => {
          // A tool's name reaches the model too: cleaned like everything else the server says.
          const name = mcpToolName(server.name, connection.clean(tool.name));
          return granted(name) && !removed(name) ? [this.toolSpec(connection, name, tool)] : [];
        });
      }),
    );
    // Two tools whose names sanitise alike: the first keeps the name.
    const seen = new Set<string>();
    return lists.flat().filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
  }

  /** Each server an agent may use as `GET /agents` shows it, with what this instance last saw of it. */
  async describe(agent: Pick<AgentDefinition, 'mcp'>): Promise<{ servers: McpServerView[]; unavailable: { name: string; reason: string }[] }> {
    const servers = await this.serversFor(agent);
    const views = servers.map((server) => this.view(server));
    const known = new Set(servers.map((s) => s.name));
    for (const name of agent.mcp?.references ?? []) {
      if (!known.has(name)) views.push({ name, type: 'http', target: '', source: 'deployment', secrets: [], status: { state: 'error', message: `no deployment-wide MCP server "${name}"` } });
    }
    // A tool named exactly whose server no one declares can never be offered: said here, as for any tool Zero lacks.
    const unavailable = (agent.mcp?.tools ?? []).flatMap((grant) => {
      const server = /^mcp__(.+?)__[^*?[\]{}!]+$/.exec(grant)?.[1];
      return server && !known.has(server)
        ? [{ name: grant, reason: `no MCP server "${server}": neither the agent file's mcpServers nor the deployment's (/api/v2/mcp-servers) declare one` }]
        : [];
    });
    return { servers: views, unavailable };
  }

  /** What this instance last saw of a deployment-wide server. */
  statusOf(name: string, config: McpServerConfig): McpStatus {
    return this.connections.get(keyOf({ name, config, source: 'deployment' }))?.status ?? { state: 'not_connected' };
  }

  async close(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(open.map((connection) => connection.close()));
  }

  private deploymentServers(): Promise<AgentServer[]> {
    if (this.deployment && Date.now() - this.deployment.at < DEPLOYMENT_LIST_TTL_MS) return this.deployment.servers;
    const servers = this.store.list().then((records) => records.map((r) => ({ name: r.name, config: r.config, source: 'deployment' as const })));
    this.deployment = { at: Date.now(), servers };
    servers.catch(() => {
      if (this.deployment?.servers === servers) this.deployment = undefined;
    });
    return servers;
  }

  /**
   * The session's vault credential for a remote server that sets no Authorization header (nor OAuth) of its own;
   * undefined when there is none or the vaults cannot be read (the server is then called without one).
   */
  private async bearer(server: AgentServer, sessionId: string): Promise<McpBearer | undefined> {
    const { config } = server;
    if (!this.options.bearerFor || config.type === 'stdio' || config.oauth || Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) return undefined;
    try {
      return await this.options.bearerFor(sessionId, config.url);
    } catch (error) {
      log.error('the session vault credentials for an MCP server could not be read', { server: server.name, error: (error as Error).message });
      return undefined;
    }
  }

  /**
   * The connection for a server definition; a changed definition gets a new one and the old one is closed.
   * With a vault credential: a connection of that credential's own, sending its token as the bearer
   * (through a secret reference, so the token is scrubbed from whatever the server sends back like any secret).
   */
  private async connection(server: AgentServer, bearer?: McpBearer): Promise<McpConnection> {
    const { McpConnection } = await (connectionModule ??= import('./connection'));
    const scope = bearer ? `${server.source}+${bearer.label}` : server.source;
    const config: McpServerConfig =
      bearer && server.config.type !== 'stdio' ? { ...server.config, headers: { ...server.config.headers, Authorization: `Bearer \${${VAULT_BEARER}}` } } : server.config;
    const key = `${scope}:${server.name}:${bearer ? createHash('sha256').update(bearer.token).digest('hex').slice(0, 16) : ''}:${JSON.stringify(config)}`;
    let connection = this.connections.get(key);
    if (!connection) {
      for (const [other, old] of this.connections) {
        if (other.startsWith(`${scope}:${server.name}:`)) {
          this.connections.delete(other);
          void old.close();
        }
      }
      const options = bearer ? { ...this.options, resolveSecret: (name: string) => (name === VAULT_BEARER ? bearer.token : this.options.resolveSecret(name)) } : this.options;
      connection = new McpConnection(server.name, config, options);
      this.connections.set(key, connection);
    }
    return connection;
  }

  private view(server: AgentServer): McpServerView {
    const { config } = server;
    let target: string;
    if (config.type === 'stdio') target = config.command;
    else {
      const url = new URL(config.url);
      target = `${url.origin}${url.pathname}`;
    }
    const status = this.connections.get(keyOf(server))?.status ?? { state: 'not_connected' as const };
    return { name: server.name, type: config.type, target, source: server.source, secrets: referencedSecrets(config), status };
  }

  private toolSpec(connection: McpConnection, name: string, tool: { name: string; description?: string; inputSchema: object; annotations?: { readOnlyHint?: boolean } }): ToolSpec<any> {
    const server = connection.name;
    // What the server says of its tools goes into every model request: cleaned of the secrets it was sent.
    const shownName = connection.clean(tool.name);
    const description = connection.clean(`${tool.description ?? tool.name} (tool "${shownName}" of the MCP server "${server}")`).slice(0, MAX_DESCRIPTION);
    return {
      name,
      description,
      // The server checks its arguments against its own schema; here only their shape, a JSON object.
      input: z.record(z.string(), z.unknown()),
      inputSchema: { ...connection.cleanJson(tool.inputSchema as Record<string, unknown>), type: 'object' },
      // The server's word: it lets a call run while its step is recorded, never lifts the MCP policy default.
      readOnly: tool.annotations?.readOnlyHint === true,
      mcpServer: server,
      async execute(input, context) {
        try {
          const result = await connection.callTool(tool.name, input as Record<string, unknown>, context.signal);
          const { toToolOutput } = await (resultModule ??= import('./tool-result'));
          return toToolOutput(server, shownName, result, (text) => connection.clean(text));
        } catch (error) {
          return { content: connection.clean(`The MCP server "${server}" could not run ${shownName}: ${(error as Error).message}`), is_error: true };
        }
      },
    };
  }
}

function keyOf(server: AgentServer): string {
  return `${server.source}:${server.name}::${JSON.stringify(server.config)}`;
}

/** The secret name a vault credential's token is sent under: in that credential's connection, it resolves to the token before any deployment secret. */
const VAULT_BEARER = `${MCP_SECRET_PREFIX}VAULT_BEARER__`;
