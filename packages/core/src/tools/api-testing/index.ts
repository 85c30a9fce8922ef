/** ZAP's core as Zero's: saved requests, response baselines and regression checks, stack traces and error context, framework hints. */
export * from './saved-request';
export * from './response-snapshot';
export * from './stack-trace';
export * from './error-context';
export * from './framework-hints';
export * from './request-library';
