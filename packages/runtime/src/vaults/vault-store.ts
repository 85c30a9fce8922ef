import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { conflict, notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '../store/artifact-store';
import { sealedSchema, type Sealer } from './sealer';

/**
 * Vaults and their credentials in the bucket, each vault its owner's alone:
 * `vaults/<owner>/<vault id>/vault.json` and `…/credentials/<credential id>.json`, one object per
 * credential so two writers of different credentials never overwrite each other (two updates of
 * the same credential: the last one wins). A credential's secret fields are sealed (see `sealer.ts`):
 * the record holds only what the API may show, and the sealed secret.
 */

const metadataSchema = z.record(z.string(), z.string());

export const vaultRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  owner: z.string(),
  display_name: z.string(),
  metadata: metadataSchema,
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
});
export type VaultRecord = z.infer<typeof vaultRecordSchema>;

const networkingSchema = z.union([z.object({ type: z.literal('limited'), allowed_hosts: z.array(z.string()) }), z.object({ type: z.literal('unrestricted') })]);
const tokenEndpointAuthSchema = z.object({ type: z.enum(['none', 'client_secret_basic', 'client_secret_post']) });

/** A credential's `auth` as the API shows it: no secret field. */
export const credentialAuthSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('environment_variable'),
    secret_name: z.string(),
    networking: networkingSchema,
    injection_location: z.object({ header: z.boolean(), body: z.boolean() }),
  }),
  z.object({ type: z.literal('static_bearer'), mcp_server_url: z.string() }),
  z.object({
    type: z.literal('mcp_oauth'),
    mcp_server_url: z.string(),
    expires_at: z.string().nullable().optional(),
    refresh: z
      .object({ client_id: z.string(), token_endpoint: z.string(), token_endpoint_auth: tokenEndpointAuthSchema, resource: z.string().nullable().optional(), scope: z.string().nullable().optional() })
      .nullable()
      .optional(),
  }),
]);
export type CredentialAuth = z.infer<typeof credentialAuthSchema>;

/** The secret fields of a credential, sealed together: only the ones its type has. */
export const credentialSecretSchema = z.object({
  secret_value: z.string().optional(),
  token: z.string().optional(),
  access_token: z.string().optional(),
  refresh_token: z.string().optional(),
  client_secret: z.string().optional(),
});
export type CredentialSecret = z.infer<typeof credentialSecretSchema>;

export const credentialRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  vault_id: z.string(),
  display_name: z.string().nullable(),
  metadata: metadataSchema,
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
  auth: credentialAuthSchema,
  sealed: sealedSchema,
});
export type CredentialRecord = z.infer<typeof credentialRecordSchema>;

const VAULT_ID = /^vlt_[a-z0-9]{24}$/;
const CREDENTIAL_ID = /^vcrd_[a-z0-9]{24}$/;
const newId = (prefix: string) => `${prefix}_${[...randomBytes(24)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('')}`;
export const newVaultId = () => newId('vlt');
export const newCredentialId = () => newId('vcrd');

const ownerPrefix = (owner: string) => `vaults/${encodeURIComponent(owner)}/`;
const vaultKey = (owner: string, id: string) => `${ownerPrefix(owner)}${id}/vault.json`;
const credentialsPrefix = (owner: string, vaultId: string) => `${ownerPrefix(owner)}${vaultId}/credentials/`;
const credentialKey = (owner: string, vaultId: string, id: string) => `${credentialsPrefix(owner, vaultId)}${id}.json`;

/** The encryption context of a credential's secret: a sealed secret opens on its own credential only. */
export const secretContext = (record: Pick<CredentialRecord, 'vault_id' | 'id'>) => ({ zero_vault: record.vault_id, zero_credential: record.id });

export class VaultStore {
  constructor(
    private readonly artifacts: ArtifactStore,
    /** Absent: the deployment has no key, and credentials can be neither written nor used. */
    private readonly sealer?: Sealer,
  ) {}

  private requireSealer(): Sealer {
    if (!this.sealer) throw conflict('this deployment has no vault key: set ZERO_VAULT_KMS_KEY (AWS) or ZERO_VAULT_KEY_FILE, so credentials can be stored encrypted');
    return this.sealer;
  }

  async putVault(record: VaultRecord): Promise<void> {
    await this.artifacts.putJson(vaultKey(record.owner, record.id), vaultRecordSchema.parse(record));
  }

  /** The owner's vault, or a 404 (also for another user's vault: nobody learns it exists). */
  async reachVault(owner: string, id: string): Promise<VaultRecord> {
    const vault = VAULT_ID.test(id) ? await this.artifacts.getJson(vaultKey(owner, id)) : undefined;
    if (!vault) throw notFound(`no vault "${id}"`);
    return vaultRecordSchema.parse(vault);
  }

  /** The owner's vaults, newest first. */
  async listVaults(owner: string): Promise<VaultRecord[]> {
    const keys = (await this.artifacts.list(ownerPrefix(owner))).map((k) => k.key).filter((key) => key.endsWith('/vault.json'));
    const vaults = await Promise.all(keys.map(async (key) => vaultRecordSchema.parse(await this.artifacts.getJson(key))));
    return vaults.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  /** Deletes the vault and every credential in it. */
  async deleteVault(owner: string, id: string): Promise<void> {
    await this.artifacts.deletePrefix(`${ownerPrefix(owner)}${id}/`);
  }

  async reachCredential(owner: string, vaultId: string, id: string): Promise<CredentialRecord> {
    const record = CREDENTIAL_ID.test(id) ? await this.artifacts.getJson(credentialKey(owner, vaultId, id)) : undefined;
    if (!record) throw notFound(`no credential "${id}" in vault "${vaultId}"`);
    return credentialRecordSchema.parse(record);
  }

  /** The vault's credentials, oldest first. */
  async listCredentials(owner: string, vaultId: string): Promise<CredentialRecord[]> {
    const keys = await this.artifacts.list(credentialsPrefix(owner, vaultId));
    const records = await Promise.all(keys.map(async ({ key }) => credentialRecordSchema.parse(await this.artifacts.getJson(key))));
    return records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** Writes the credential; `secret` (when given) is sealed, else the stored sealed secret is kept. */
  async putCredential(owner: string, record: Omit<CredentialRecord, 'sealed'> & { sealed?: CredentialRecord['sealed'] }, secret?: CredentialSecret): Promise<CredentialRecord> {
    const sealed = secret ? await this.requireSealer().seal(JSON.stringify(credentialSecretSchema.parse(secret)), secretContext(record)) : record.sealed;
    if (!sealed) throw new Error('a credential is written with its secret');
    const full = credentialRecordSchema.parse({ ...record, sealed });
    await this.artifacts.putJson(credentialKey(owner, record.vault_id, record.id), full);
    return full;
  }

  async deleteCredential(owner: string, vaultId: string, id: string): Promise<void> {
    await this.artifacts.delete(credentialKey(owner, vaultId, id));
  }

  /** The credential's secret fields, unsealed. Only code that puts a secret on the wire calls it. */
  async openSecret(record: CredentialRecord): Promise<CredentialSecret> {
    return credentialSecretSchema.parse(JSON.parse(await this.requireSealer().open(record.sealed, secretContext(record))));
  }
}
