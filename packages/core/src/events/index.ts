/** The run's stream events, their ids and usage: what every layer above speaks. */
export * from './schema';
export * from './ids';
export * from './recorder';
export * from './usage';
