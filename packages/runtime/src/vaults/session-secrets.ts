import { type SessionVaultServices, sessionCredentials } from './session-credentials';

/** A vault credential's secret, ready for http_request: its value and the hosts it may go to. */
export interface VaultSecret {
  /** `<secret_name> (credential <id> of vault <id>)`: how errors name it, never its value. */
  label: string;
  value: string;
  allowedHosts: string[];
}

/** Looks up the secrets a request names among its session's vault credentials; a name found in none is absent from the map. */
export type VaultSecretLookup = (names: readonly string[]) => Promise<Map<string, VaultSecret>>;

/**
 * The session's vault credentials of type `environment_variable` whose `secret_name` is one of
 * `names`: from the vaults the session was created with (`vault_ids`, in that order: the first
 * vault holding a name wins), as their owner (the session's creator) holds them now. An archived
 * vault or credential gives nothing. Only the secrets named are unsealed.
 */
export async function sessionVaultSecrets(services: SessionVaultServices, sessionId: string, names: readonly string[]): Promise<Map<string, VaultSecret>> {
  const found = new Map<string, VaultSecret>();
  if (names.length === 0) return found;
  for await (const { vaultId, credential, vaults } of sessionCredentials(services, sessionId)) {
    const auth = credential.auth;
    if (auth.type !== 'environment_variable' || !names.includes(auth.secret_name) || found.has(auth.secret_name)) continue;
    // A credential not bound to hosts goes nowhere (the API refuses to store one; this holds for a hand-made record too).
    if (auth.networking.type !== 'limited' || !auth.injection_location.header) continue;
    const secret = await vaults.openSecret(credential);
    if (!secret.secret_value) continue;
    found.set(auth.secret_name, {
      label: `${auth.secret_name} (credential ${credential.id} of vault ${vaultId})`,
      value: secret.secret_value,
      allowedHosts: auth.networking.allowed_hosts,
    });
  }
  return found;
}
