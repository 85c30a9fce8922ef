/** Schedules: cron-timed runs as a schedule's owner. Loads croner: import lazily. */
export * from './cron';
export * from './due';
export * from './fire';
export * from './schedule-config';
export * from './tick';
export * from './timer';
