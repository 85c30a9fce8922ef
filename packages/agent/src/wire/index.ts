/**
 * Zero's wire: every request, response, SSE event and UI data part of the
 * HTTP API as a zod schema with its type inferred from it. Imports only zod,
 * so a browser can load it (`@zero/core/wire`).
 */
export * from './fields';
export * from './requests';
export * from './responses';
export * from './events';
export * from './ui-parts';
export * from './permissions';
export * from './mcp-servers';
export * from './memory';
export * from './plan';
export * from './budgets';
export * from './outcome';
export * from './usage';
export * from './operations';
export * from './attachments';
export * from './rewind';
export * from './system-prompt';
