/** `create-issue` → itself; characters the model's tool names cannot hold become `_`; the whole name at most 128. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 128);
}
