/** The model provider interface and the Anthropic provider. */
export * from './provider';
export * from './anthropic';
export * from './pricing';
export * from './thinking';
export * from './context-windows';
