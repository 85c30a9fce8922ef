import * as z from 'zod';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { JsonCollection } from '@zero/runtime/store/json-collection';
import { mcpServerInputSchema, mcpServerNameSchema } from '@zero/agent/wire/mcp-servers';

/** A deployment-wide MCP server as stored in the bucket, `mcp-servers/<name>.json`: secret references, never values. */
export const mcpServerRecordItem = z.object({
  v: z.literal(1),
  name: mcpServerNameSchema,
  config: mcpServerInputSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type McpServerRecord = z.infer<typeof mcpServerRecordItem>;

/** The deployment-wide MCP servers administrators manage (`/api/v2/mcp-servers`), one object each (`mcp-servers/<name>.json`), like hooks. */
export class McpServerStore {
  private readonly servers: JsonCollection<McpServerRecord>;

  constructor(artifacts: ArtifactStore) {
    this.servers = new JsonCollection(artifacts, { prefix: 'mcp-servers/', id: mcpServerNameSchema, item: mcpServerRecordItem, noun: 'MCP server', field: 'name' });
  }

  get(name: string): Promise<McpServerRecord | undefined> {
    return this.servers.get(name);
  }

  require(name: string): Promise<McpServerRecord> {
    return this.servers.require(name);
  }

  /** Creates or replaces a server; returns it and whether it is new. */
  async put(name: string, config: z.output<typeof mcpServerInputSchema>): Promise<{ server: McpServerRecord; created: boolean }> {
    const { item, created } = await this.servers.put(name, (stamps) => ({ v: 1, name, config, ...stamps }));
    return { server: item, created };
  }

  list(): Promise<McpServerRecord[]> {
    return this.servers.list();
  }

  delete(name: string): Promise<boolean> {
    return this.servers.delete(name);
  }
}
