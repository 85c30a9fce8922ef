/** DynamoDB and S3 items: sessions, leases and log positions, members, artifacts. */
export * from './project-member-store';
export * from './report-owner-store';
export * from './clients';
export * from './records';
export * from './artifact-store';
export * from './session-store';
export * from './keys';
export * from './lease-store';
export * from './positions';
export * from './stream-slots';
export * from './session-watchers';
export * from './spend-store';
export * from './usage-store';
