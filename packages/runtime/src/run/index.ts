/** The loop: one run of an agent, its limits, prompt, history and delegation. */
export * from './limits';
export * from './tool-limits';
export * from './prompt';
export * from './history';
export * from './loop';
export * from './delegate';
export * from '@zero/agent/log/redact';
export * from './run-setup';
export * from './stop-reasons';
