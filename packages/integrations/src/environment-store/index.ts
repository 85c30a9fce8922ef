export * from './environment-params';
export * from './environment-resource';
export * from './self-hosted';
export * from './toolset-definitions';
export * from './environment-wire';
export * from './session-resources';
