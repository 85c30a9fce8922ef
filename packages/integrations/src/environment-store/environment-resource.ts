import { packagesHash } from '@zero/runtime/environments/packages-hash';
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

/**
 * Zero's view (`/api/v2/environments`): the API's fields, and the kind, limits, owner and how the
 * install of its packages went: null until a command needed them (or without packages), `pending` when they changed since.
 */
export function environmentView(environment: EnvironmentRecord) {
  return { ...environmentResource(environment), kind: environment.kind, limits: environment.limits, owner: environment.owner || null, packages_status: packagesStatusOf(environment) };
}

function packagesStatusOf(environment: EnvironmentRecord) {
  const status = environment.packages_status;
  const { apt, npm, pip } = environment.packages;
  if (!status || apt.length + npm.length + pip.length === 0) return null;
  if (status.packages_hash !== packagesHash({ apt, npm, pip })) return { state: 'pending' as const, error: null, at: status.at };
  return { state: status.state, error: status.error, at: status.at };
}
