import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuthUser } from '../auth/authenticator';
import { conflict, notFound } from '@zero/agent/errors';
import { ZERO_ENVIRONMENT_ID } from '../store/session-record';
import { keys } from '../store/keys';
import { environmentItem, environmentRecordSchema, packagesStatusSchema, type EnvironmentKind, type EnvironmentRecord, type PackagesStatus } from '../store/items/environment';
import { Table } from '../store/table';

/**
 * The environment every session has when it names none: built in, the deployment's own sandbox kind,
 * owned by nobody. Its id predates the kinds (sessions made before issue 29 carry it): it names the
 * deployment's sandbox, `local` or `lambda`.
 */
export const DEFAULT_ENVIRONMENT_ID = ZERO_ENVIRONMENT_ID;

const EMPTY_PACKAGES = { apt: [], npm: [], pip: [], cargo: [], gem: [], go: [] };

/** The kind of the deployment's own sandbox: the sandbox function on Lambda, bubblewrap on the local server. */
export function deploymentSandboxKind(env: Record<string, string | undefined> = process.env): Exclude<EnvironmentKind, 'self_hosted'> {
  return env.AWS_LAMBDA_FUNCTION_NAME ? 'lambda' : 'local';
}

/** The default environment: no packages beyond the system's, network off, the deployment's limits. */
export function defaultEnvironment(): EnvironmentRecord {
  const epoch = new Date(0).toISOString();
  return {
    id: DEFAULT_ENVIRONMENT_ID,
    name: 'Default',
    description: "The deployment's own sandbox: no extra packages, no network, the deployment's limits.",
    kind: deploymentSandboxKind(),
    packages: EMPTY_PACKAGES,
    network: { type: 'limited', allowed_hosts: [], allow_package_managers: false, allow_mcp_servers: false },
    limits: {},
    metadata: {},
    owner: '',
    revision: 1,
    created_at: epoch,
    updated_at: epoch,
    archived_at: null,
  };
}

export const newEnvironmentId = () => `env_${randomBytes(15).toString('hex')}`;

/** Who may reach an environment: its owner and administrators; everyone reaches the default one. */
export const mayReach = (environment: EnvironmentRecord, user: AuthUser) => environment.id === DEFAULT_ENVIRONMENT_ID || user.admin || environment.owner === user.id;

/**
 * Environments in the table, one item each (`ENV#<id>` / `ENV`), listed through `gsi1` (`ENVS`, by
 * creation time). Every write is conditional: a create only where no item is, an update only over
 * the revision it read (two updates from the same read: one wins, the other is a 409).
 */
export class EnvironmentStore {
  readonly table: Table;

  constructor(db: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(db, tableName);
  }

  /** The environment, the built-in default included; undefined when there is none of that id. */
  async get(id: string): Promise<EnvironmentRecord | undefined> {
    if (id === DEFAULT_ENVIRONMENT_ID) return defaultEnvironment();
    if (!/^env_[A-Za-z0-9_]{1,64}$/.test(id)) return undefined;
    const item = await this.table.get(keys.environment(id), { consistent: true });
    return item ? environmentItem.decode(item) : undefined;
  }

  /** The environment if `user` may reach it; else a 404, the same as for one that does not exist (its existence is not told). */
  async reach(id: string, user: AuthUser, field = 'environment_id'): Promise<EnvironmentRecord> {
    const environment = await this.get(id);
    if (!environment || !mayReach(environment, user)) throw notFound(`no environment "${id}"`, field);
    return environment;
  }

  /** The environments `user` reaches, newest first, the default one last. */
  async listFor(user: AuthUser): Promise<EnvironmentRecord[]> {
    const items = await this.table.query({ pk: keys.environments, index: 'gsi1', newestFirst: true });
    const stored = items.map((item) => environmentItem.decode(item)).filter((e) => mayReach(e, user));
    return [...stored, defaultEnvironment()];
  }

  async create(environment: EnvironmentRecord): Promise<void> {
    const record = environmentRecordSchema.parse(environment);
    const written = await this.table.putNew({
      ...keys.environment(record.id),
      v: environmentItem.version,
      gsi1pk: keys.environments,
      gsi1sk: keys.environmentsSort(record.created_at, record.id),
      ...record,
    });
    if (!written) throw conflict(`environment "${record.id}" exists already`);
  }

  /** Writes `next` over the revision `current` had; a 409 when someone changed it since. */
  async replace(current: EnvironmentRecord, next: EnvironmentRecord): Promise<void> {
    const record = environmentRecordSchema.parse({ ...next, revision: current.revision + 1 });
    const written = await this.table.put(
      { ...keys.environment(record.id), v: environmentItem.version, gsi1pk: keys.environments, gsi1sk: keys.environmentsSort(record.created_at, record.id), ...record },
      { expression: 'revision = :revision', values: { ':revision': current.revision } },
    );
    if (!written) throw conflict(`environment "${record.id}" was changed by someone else since it was read; read it again`);
  }

  /** Records how the install of its packages went (no revision is taken or raised: it is the server's, not an edit); the default environment has none. */
  async setPackagesStatus(id: string, status: PackagesStatus): Promise<void> {
    if (id === DEFAULT_ENVIRONMENT_ID) return;
    await this.table.update(keys.environment(id), {
      set: 'SET packages_status = :s',
      condition: 'attribute_exists(pk)',
      values: { ':s': packagesStatusSchema.parse(status) },
    });
  }

  async delete(id: string): Promise<void> {
    await this.table.delete(keys.environment(id));
  }
}
