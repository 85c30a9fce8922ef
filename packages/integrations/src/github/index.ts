/** GitHub: the REST client behind the outbound guard, hydrating projects from a commit, reporting on pull requests. */
export * from './client';
export * from './settings';
export * from './hydrate';
export * from './app';
