/** Signed outbound events: subscriptions, Standard Webhooks signatures, delivery with retries. */
export * from './standard-webhooks';
export * from './subscription-store';
export * from './deliver';
export * from './publish';
export * from './run-events';
export * from './outbox';
export * from './outbox-store';
export * from './sweep-message';
