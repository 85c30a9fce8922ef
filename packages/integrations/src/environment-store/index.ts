export * from './environment-store';
export * from './environment-params';
export * from './environment-resource';
export * from './work-queue';
export * from './self-hosted';
export * from './toolset-definitions';
export type { EnvironmentRecord, EnvironmentKind, EnvironmentLimits, EnvironmentNetwork, EnvironmentPackages } from '@zero/runtime/store/items/environment';
export type { WorkItem, WorkState, WorkOutcome } from '@zero/runtime/store/items/work-item';
export * from './environment-wire';
