/** Webhook investigations: accept, finish, call back. */
export * from './accept';
export * from './callback';
export * from './finish';
export * from './hook-config';
export * from './prepare';
export * from './signature';
export * from './template';
export * from './webhook-store';
export * from './webhooks';
