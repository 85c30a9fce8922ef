import type { EnvironmentRecord } from '@zero/runtime/store/items/environment';

/**
 * An environment as the Managed Agents API shows it (`BetaEnvironment`): a Zero sandbox (`local`,
 * `lambda`) is a `cloud` config with its networking and packages; `self_hosted` is the work queue.
 * Limits and the kind by name are Zero's own: `/api/v2/environments` shows them.
 */
export function environmentResource(environment: EnvironmentRecord) {
  const config =
    environment.kind === 'self_hosted'
      ? { type: 'self_hosted' as const }
      : { type: 'cloud' as const, networking: environment.network, packages: { type: 'packages' as const, ...environment.packages } };
  return {
    type: 'environment' as const,
    id: environment.id,
    name: environment.name,
    description: environment.description,
    config,
    metadata: environment.metadata,
    scope: 'account' as const,
    created_at: environment.created_at,
    updated_at: environment.updated_at,
    archived_at: environment.archived_at,
  };
}

/** Zero's view (`/api/v2/environments`): the API's fields, and the kind, limits and owner. */
export function environmentView(environment: EnvironmentRecord) {
  return { ...environmentResource(environment), kind: environment.kind, limits: environment.limits, owner: environment.owner || null };
}
