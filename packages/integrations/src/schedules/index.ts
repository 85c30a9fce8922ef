/** Schedules: cron-timed runs as a schedule's owner. Loads croner: import lazily. */
export * from './aws-cron';
export * from './cron';
export * from './due';
export * from './eventbridge';
export * from './fire';
export * from './schedule-config';
export * from './timer';
export * from './trigger';
