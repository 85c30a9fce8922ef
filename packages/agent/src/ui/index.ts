/** Browser-safe helpers for chat UIs built on the AI SDK: type imports only. */
export * from './history-to-ui-messages';
export * from './plan-progress';
