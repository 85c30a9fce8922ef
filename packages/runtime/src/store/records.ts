/** The stored item types, one module each under `items/`: key, versioned schema, decoder. */
export * from './items/api-key';
export * from './items/event-batch';
export * from './items/fields';
export * from './items/inbox-message';
export * from './items/log-record';
export * from './items/project-claim';
export * from './items/project-member';
export * from './items/report-owner';
export * from './items/run-lease';
export * from './items/session-artifact';
export * from './items/session-member';
export * from './items/session-meta';
export * from './items/session-permissions';
export * from './items/session-summary';
export * from './items/stream-slots';
export * from './items/session-watcher';
export * from './items/webhook-delivery';
export { StoredItemError, type ItemKey, type StoredItem } from './stored-item';
