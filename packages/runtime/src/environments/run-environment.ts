import type { SandboxLimits } from './sandbox';
import { readSessionRecord, type MemoryStoreResource, type SessionResource } from '../store/session-record';
import type { ArtifactStore } from '../store/artifact-store';
import type { EnvironmentLimits, EnvironmentNetwork, EnvironmentRecord } from '../store/items/environment';
import { defaultEnvironment, DEFAULT_ENVIRONMENT_ID, type EnvironmentStore } from './environment-store';

/** The hosts `allow_package_managers` opens: the registries of the package managers environments install with. */
export const PACKAGE_MANAGER_HOSTS = ['registry.npmjs.org', 'registry.yarnpkg.com', 'pypi.org', 'files.pythonhosted.org', 'deb.debian.org', 'security.debian.org', 'archive.ubuntu.com', 'security.ubuntu.com', 'crates.io', 'static.crates.io', 'index.crates.io', 'rubygems.org', 'proxy.golang.org', 'sum.golang.org'];

/** What a session's commands run under: its environment as it is now, and the repositories and files mounted into its working copy. */
export interface RunEnvironment {
  environment: EnvironmentRecord;
  /** Memory stores are not in the working copy: the memory tool reaches them. */
  resources: Exclude<SessionResource, MemoryStoreResource>[];
}

/**
 * The environment a session names (in its Managed Agents record), read afresh: an edit of its
 * limits, network or packages applies to the session's next command. A session without a record
 * (made through `/api/v2`), or a deployment that passes no store, is in the default environment.
 * Throws (a message for the model) when the named environment has been deleted.
 */
export async function runEnvironment(deps: { artifacts: ArtifactStore; environments?: EnvironmentStore }, sessionId: string): Promise<RunEnvironment> {
  const record = await readSessionRecord(deps.artifacts, sessionId);
  const id = record?.environment_id ?? DEFAULT_ENVIRONMENT_ID;
  const environment = deps.environments ? await deps.environments.get(id) : id === DEFAULT_ENVIRONMENT_ID ? defaultEnvironment() : undefined;
  if (!environment) throw new Error(`the session's environment "${id}" no longer exists, so its commands cannot run`);
  return { environment, resources: (record?.resources ?? []).filter((r) => r.type !== 'memory_store') };
}

/** An environment's limits as a sandbox takes them; an absent one stays the deployment's. */
export function sandboxLimitsOf(limits: EnvironmentLimits): Partial<SandboxLimits> {
  const MiB = 1024 * 1024;
  return {
    ...(limits.timeout_seconds !== undefined ? { timeoutMs: limits.timeout_seconds * 1000 } : {}),
    ...(limits.cpu_seconds !== undefined ? { cpuSeconds: limits.cpu_seconds } : {}),
    ...(limits.memory_mb !== undefined ? { memoryBytes: limits.memory_mb * MiB } : {}),
    ...(limits.processes !== undefined ? { processes: limits.processes } : {}),
    ...(limits.disk_mb !== undefined ? { diskBytes: limits.disk_mb * MiB } : {}),
  };
}

/** The hosts an environment's network opens to a sandbox: `*` when unrestricted (the outbound guard still decides), else its allowlist (and the package registries when it allows package managers). */
export function networkAllowOf(network: EnvironmentNetwork): string[] {
  if (network.type === 'unrestricted') return ['*'];
  return [...network.allowed_hosts, ...(network.allow_package_managers ? PACKAGE_MANAGER_HOSTS : [])];
}
