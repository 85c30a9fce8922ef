/** The run's event ids, recorder and usage (the event shapes are in `wire/`). */
export * from './ids';
export * from './recorder';
export * from './usage';
