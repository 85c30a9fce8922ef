import * as z from 'zod';
import { mcpServerConfigSchema, mcpServerNameSchema, type McpServerConfig } from '../wire/mcp-servers';

/** An agent file's MCP servers: its own definitions, and the deployment-wide servers it names. */
export interface AgentMcpServers {
  servers: Record<string, McpServerConfig>;
  references: string[];
}

/**
 * `mcpServers:` as Claude Code's subagent files write it: a mapping of name to
 * definition, or a list whose entries are a server's name (a deployment-wide
 * server) or a one-key mapping of name to definition. Errors name the field:
 * `mcpServers.github.url: must be an http(s) URL`.
 */
export const agentMcpServersSchema = z.unknown().transform((value, ctx): AgentMcpServers => {
  const out: AgentMcpServers = { servers: {}, references: [] };
  const define = (name: string, config: unknown, path: (string | number)[]) => {
    const named = mcpServerNameSchema.safeParse(name);
    if (!named.success) return ctx.addIssue({ code: 'custom', path, message: `server name "${name}" ${named.error.issues[0]!.message}` });
    const parsed = mcpServerConfigSchema.safeParse(config);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [...path, ...issue.path] } as never);
      return;
    }
    out.servers[name] = parsed.data;
  };
  const defineAll = (map: object, path: (string | number)[]) => {
    for (const [name, config] of Object.entries(map)) define(name, config, [...path, name]);
  };
  if (Array.isArray(value)) {
    value.forEach((entry, index) => {
      if (typeof entry === 'string') {
        const named = mcpServerNameSchema.safeParse(entry);
        if (named.success) out.references.push(entry);
        else ctx.addIssue({ code: 'custom', path: [index], message: `server name "${entry}" ${named.error.issues[0]!.message}` });
      } else if (isMapping(entry)) defineAll(entry, [index]);
      else ctx.addIssue({ code: 'custom', path: [index], message: 'must be a server name or a mapping of name to definition' });
    });
  } else if (isMapping(value)) defineAll(value, []);
  else ctx.addIssue({ code: 'custom', message: 'must be a mapping of server name to definition, or a list of server names and definitions' });
  return out;
});

function isMapping(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
