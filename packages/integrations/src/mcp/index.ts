/** Zero as an MCP client: agents use the tools of remote MCP servers (see clients.ts). */
export * from './clients';
export * from './connection';
export * from './secrets';
export * from './server-store';
export * from './tool-result';
