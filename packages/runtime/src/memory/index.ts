/** Memory: text files that outlive a session, one store per user and per project, in the bucket. */
export * from './paths';
export * from './memory-lock';
export * from './memory-store';
export * from './session-memory';
