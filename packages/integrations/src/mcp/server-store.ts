import * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { mcpServerInputSchema, mcpServerNameSchema } from '@zero/agent/wire/mcp-servers';
import { log } from '@zero/agent/log/log';

/** A deployment-wide MCP server as stored in the bucket, `mcp-servers/<name>.json`: secret references, never values. */
export const mcpServerRecordItem = z.object({
  v: z.literal(1),
  name: mcpServerNameSchema,
  config: mcpServerInputSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type McpServerRecord = z.infer<typeof mcpServerRecordItem>;

const PREFIX = 'mcp-servers/';
const keyOf = (name: string) => `${PREFIX}${mcpServerNameSchema.parse(name)}.json`;

/** The deployment-wide MCP servers administrators manage (`/api/v2/mcp-servers`), one object each, like hooks. */
export class McpServerStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  async get(name: string): Promise<McpServerRecord | undefined> {
    if (!mcpServerNameSchema.safeParse(name).success) return undefined;
    const value = await this.artifacts.getJson(keyOf(name));
    if (value === undefined) return undefined;
    const parsed = mcpServerRecordItem.safeParse(value);
    if (!parsed.success) {
      log.error('unreadable MCP server definition', { server: name, error: parsed.error.message });
      return undefined;
    }
    return parsed.data;
  }

  async require(name: string): Promise<McpServerRecord> {
    const server = await this.get(name);
    if (!server) throw notFound(`no MCP server "${name}"`, 'name');
    return server;
  }

  /** Creates or replaces a server; returns it and whether it is new. */
  async put(name: string, config: z.output<typeof mcpServerInputSchema>): Promise<{ server: McpServerRecord; created: boolean }> {
    const existing = await this.get(name);
    const now = new Date().toISOString();
    const server: McpServerRecord = { v: 1, name, config, created_at: existing?.created_at ?? now, updated_at: now };
    await this.artifacts.putJson(keyOf(name), server);
    return { server, created: !existing };
  }

  async list(): Promise<McpServerRecord[]> {
    const objects = await this.artifacts.list(PREFIX);
    const servers = await Promise.all(objects.map((o) => this.get(o.key.slice(PREFIX.length).replace(/\.json$/, ''))));
    return servers.filter((s) => s !== undefined);
  }

  async delete(name: string): Promise<boolean> {
    if (!(await this.get(name))) return false;
    await this.artifacts.deletePrefix(keyOf(name));
    return true;
  }
}
