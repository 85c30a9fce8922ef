/** Tools: the contract, the registry and the built-in tools. */
export * from './tool';
export * from './registry';
export * from './policy';
export * from './get-agent-info';
export * from './delegate-agent';
export * from './project-scope';
export * from './read-file';
export * from './grep';
export * from './glob';
export * from './write-file';
export * from './render-report';
export * from './list-projects';
export * from './get-analysis';
export * from './web-fetch';
export * from './web-search';
export * from '../net/outbound';
