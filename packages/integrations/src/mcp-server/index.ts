/**
 * Zero as an MCP server (Streamable HTTP, stateless). Loaded by the `/mcp`
 * route on first use: nothing here, nor the MCP SDK, is in the API's cold start.
 */
export { createMcpServer, handleMcpRequest, MCP_SERVER_INFO } from './handle-request';
export { askInputSchema, askOutputSchema, type AskOptions } from './ask-agent';
export { RESOURCE_PAGE_SIZE, resourceUri } from './resources';
