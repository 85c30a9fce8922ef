/**
 * Everything at once, for compatibility: new code imports the subpath of the
 * concern it needs (`@zero/core/run`, `@zero/core/sessions`, ...; see package.json).
 */
export * from './errors';
export * from './wire';
export * from './events';
export * from './agent';
export * from './model';
export * from './tools';
export * from './projects';
export * from './memory';
export * from './store';
export * from './auth';
export * from './run';
export * from './sessions';
export * from './webhooks';
export type { GitHubSettings } from './github/settings';
export * from './mcp';
export * from './runtime';
export * from './plan';
export * from './budgets';
export * from './rate-limits/limits';
export * from './log';
export * from './telemetry/traces';
