/** The model provider interface and the Anthropic provider. */
export * from './provider';
export * from './anthropic';
export * from './aliases';
export * from './pricing';
export * from './thinking';
export * from './context-windows';
export * from './providers-config';
export * from './router';
export * from './providers';
export * from './lazy-provider';
