import type { ManagedAgentStore } from '@zero/integrations/managed';
import type { AppDeps } from '../env';

/** The runtime as the `/v1` routes use it: with the managed agents' store. */
export type V1Deps = AppDeps & { managedAgents: ManagedAgentStore };
