/** A session's life: accepting a message, driving, resuming, the queue and the live view. */
export * from './start-chat';
export * from './accept-message';
export * from './open-session';
export * from './stop-run';
export * from './resume';
export * from './collect-run';
export * from './active-run';
export * from './watch-session';
export * from './run-registry';
export * from './feed';
export * from './access';
export * from './drive';
export * from './approvals';
export * from './decide-approval';
export * from './queue';
export * from './sqs-queue';
export * from './worker-job';
