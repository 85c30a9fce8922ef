import type { ArtifactStore } from '../store/artifact-store';
import { readSessionRecord } from '../store/session-record';
import type { CredentialRecord, VaultStore } from './vault-store';

/** What reading a session's vault credentials needs: the session records and, where vaults are on, their store. */
export interface SessionVaultServices {
  artifacts: ArtifactStore;
  vaults?: () => Promise<VaultStore>;
}

/** A live credential of one of a session's vaults, with the store that can unseal it. */
export interface SessionCredential {
  vaultId: string;
  credential: CredentialRecord;
  vaults: VaultStore;
}

/**
 * The live credentials of the vaults a session was created with (`vault_ids`, in that order; within a
 * vault, as the store lists them), as their owner (the session's creator) holds them now: an archived or
 * unreachable vault and an archived credential are passed over. Nothing is unsealed. Lazy: a caller that
 * stops early reads no further vault. Yields nothing where vaults are off or the session names none.
 */
export async function* sessionCredentials(services: SessionVaultServices, sessionId: string): AsyncGenerator<SessionCredential> {
  if (!services.vaults) return;
  const record = await readSessionRecord(services.artifacts, sessionId);
  if (!record?.vaults) return;
  const { owner, ids } = record.vaults;
  const vaults = await services.vaults();
  for (const vaultId of ids) {
    const vault = await vaults.reachVault(owner, vaultId).catch(() => undefined);
    if (!vault || vault.archived_at) continue;
    for (const credential of await vaults.listCredentials(owner, vaultId)) {
      if (!credential.archived_at) yield { vaultId, credential, vaults };
    }
  }
}
