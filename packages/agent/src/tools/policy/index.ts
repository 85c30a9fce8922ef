/** Permission policies: every tool call is allowed, asked about or denied (see permission-policy.ts). */
export * from './permission-policy';
export * from './deployment';
