import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import { allowedHostProblem, MAX_ALLOWED_HOSTS } from '@zero/runtime/vaults/host-binding';
import type { CredentialAuth, CredentialRecord, CredentialSecret, VaultRecord } from '@zero/runtime/vaults/vault-store';
import { HTTP_SECRET_PREFIX } from '@zero/runtime/tools/http-secrets';

/**
 * The Managed Agents API's vault and credential requests (`client.beta.vaults`, `.credentials`) as
 * Zero takes them, and its records as the API shows them. What Zero cannot honour is refused by name:
 * `networking: unrestricted` (every credential is bound to hosts) and `injection_location.body`
 * (http_request puts secrets in header values only).
 */

const metadata = z.record(z.string().min(1).max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');
const metadataPatch = z.record(z.string().min(1).max(64), z.string().max(512).nullable()).refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');
const displayName = z.string().min(1).max(255);
/** A secret as sent: at most 16 KiB. */
const secret = z.string().min(1).max(16_384);
const headerSafe = (value: string) => !/[\r\n\0]/.test(value);
const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an absolute http(s) URL');
const future = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an RFC 3339 time')
  .refine((value) => Date.parse(value) > Date.now(), 'must be in the future');

export const vaultCreateParams = z.strictObject({ display_name: displayName, metadata: metadata.optional() });
export const vaultUpdateParams = z.strictObject({ display_name: displayName.nullish(), metadata: metadataPatch.nullish() });

const allowedHost = z.string().superRefine((entry, ctx) => {
  const problem = allowedHostProblem(entry);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const networking = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('limited'), allowed_hosts: z.array(allowedHost).min(1, 'name at least one host').max(MAX_ALLOWED_HOSTS) }),
  z.strictObject({ type: z.literal('unrestricted') }),
]);
const injectionLocation = z.strictObject({ header: z.boolean().optional(), body: z.boolean().optional() });
const secretName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name: a letter or _, then letters, digits or _ (at most 128)')
  .refine((name) => !name.startsWith(HTTP_SECRET_PREFIX), `names starting ${HTTP_SECRET_PREFIX} are the operator's secrets`);
const tokenEndpointAuth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('client_secret_basic'), client_secret: secret }),
  z.strictObject({ type: z.literal('client_secret_post'), client_secret: secret }),
]);
const tokenEndpointAuthUpdate = z.strictObject({ type: z.enum(['client_secret_basic', 'client_secret_post']), client_secret: secret.nullish() });

const authCreate = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('environment_variable'),
    secret_name: secretName,
    secret_value: secret.refine(headerSafe, 'must not contain a line break or NUL: Zero puts it in header values'),
    networking,
    injection_location: injectionLocation.optional(),
  }),
  z.strictObject({ type: z.literal('static_bearer'), token: secret.refine(headerSafe, 'must not contain a line break or NUL'), mcp_server_url: httpUrl }),
  z.strictObject({
    type: z.literal('mcp_oauth'),
    access_token: secret.refine(headerSafe, 'must not contain a line break or NUL'),
    mcp_server_url: httpUrl,
    expires_at: future.nullish(),
    refresh: z
      .strictObject({
        client_id: z.string().min(1).max(512),
        refresh_token: secret,
        token_endpoint: httpUrl,
        token_endpoint_auth: tokenEndpointAuth,
        resource: z.string().max(2048).nullish(),
        scope: z.string().max(2048).nullish(),
      })
      .nullish(),
  }),
]);

const authUpdate = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('environment_variable'),
    secret_value: secret.refine(headerSafe, 'must not contain a line break or NUL: Zero puts it in header values').nullish(),
    networking: networking.nullish(),
    injection_location: injectionLocation.optional(),
  }),
  z.strictObject({ type: z.literal('static_bearer'), token: secret.refine(headerSafe, 'must not contain a line break or NUL').nullish() }),
  z.strictObject({
    type: z.literal('mcp_oauth'),
    access_token: secret.refine(headerSafe, 'must not contain a line break or NUL').nullish(),
    expires_at: future.nullish(),
    refresh: z.strictObject({ refresh_token: secret.nullish(), scope: z.string().max(2048).nullish(), token_endpoint_auth: tokenEndpointAuthUpdate.optional() }).nullish(),
  }),
]);

export const credentialCreateParams = z.strictObject({ auth: authCreate, display_name: z.string().max(255).nullish(), metadata: metadata.optional() });
export const credentialUpdateParams = z.strictObject({ auth: authUpdate.optional(), display_name: displayName.nullish(), metadata: metadataPatch.nullish() });
export type CredentialCreateParams = z.output<typeof credentialCreateParams>;
export type CredentialUpdateParams = z.output<typeof credentialUpdateParams>;

/** What Zero refuses of a credential's networking and injection location, naming the field. */
function checkEnvironmentVariable(networkingValue: z.output<typeof networking> | null | undefined, location: z.output<typeof injectionLocation> | undefined) {
  if (networkingValue?.type === 'unrestricted') {
    throw invalidField('auth.networking', 'Zero sends a credential only to the hosts it is bound to: give {"type": "limited", "allowed_hosts": [...]}');
  }
  if (location?.body) throw invalidField('auth.injection_location.body', 'Zero substitutes credentials in request header values only');
  if (location?.header === false) throw invalidField('auth.injection_location.header', 'at least one location must be enabled, and Zero substitutes in header values only');
}

/** A new credential's public `auth` and its secret fields, from the request. */
export function newCredentialAuth(params: CredentialCreateParams['auth']): { auth: CredentialAuth; secret: CredentialSecret } {
  switch (params.type) {
    case 'environment_variable': {
      checkEnvironmentVariable(params.networking, params.injection_location);
      const hosts = params.networking.type === 'limited' ? [...new Set(params.networking.allowed_hosts)] : [];
      return {
        auth: { type: 'environment_variable', secret_name: params.secret_name, networking: { type: 'limited', allowed_hosts: hosts }, injection_location: { header: true, body: false } },
        secret: { secret_value: params.secret_value },
      };
    }
    case 'static_bearer':
      return { auth: { type: 'static_bearer', mcp_server_url: params.mcp_server_url }, secret: { token: params.token } };
    case 'mcp_oauth': {
      const refresh = params.refresh;
      return {
        auth: {
          type: 'mcp_oauth',
          mcp_server_url: params.mcp_server_url,
          expires_at: params.expires_at ?? null,
          refresh: refresh
            ? { client_id: refresh.client_id, token_endpoint: refresh.token_endpoint, token_endpoint_auth: { type: refresh.token_endpoint_auth.type }, resource: refresh.resource ?? null, scope: refresh.scope ?? null }
            : null,
        },
        secret: {
          access_token: params.access_token,
          ...(refresh ? { refresh_token: refresh.refresh_token } : {}),
          ...(refresh && refresh.token_endpoint_auth.type !== 'none' ? { client_secret: refresh.token_endpoint_auth.client_secret } : {}),
        },
      };
    }
  }
}

/**
 * A credential's `auth` and secret after an update: the type cannot change, immutable fields
 * (`secret_name`, `mcp_server_url`, `client_id`) are not in the request's shape; `secretChanged` when
 * a secret field was sent (the secret is then sealed again).
 */
export function updatedCredentialAuth(
  current: CredentialAuth,
  secretNow: () => Promise<CredentialSecret>,
  params: NonNullable<CredentialUpdateParams['auth']>,
): Promise<{ auth: CredentialAuth; secret?: CredentialSecret }> {
  if (params.type !== current.type) throw invalidField('auth.type', `is "${current.type}" for this credential and cannot be changed`);
  return (async () => {
    if (params.type === 'environment_variable' && current.type === 'environment_variable') {
      checkEnvironmentVariable(params.networking, params.injection_location);
      const auth: CredentialAuth = {
        ...current,
        ...(params.networking?.type === 'limited' ? { networking: { type: 'limited', allowed_hosts: [...new Set(params.networking.allowed_hosts)] } } : {}),
      };
      return params.secret_value ? { auth, secret: { ...(await secretNow()), secret_value: params.secret_value } } : { auth };
    }
    if (params.type === 'static_bearer') return params.token ? { auth: current, secret: { ...(await secretNow()), token: params.token } } : { auth: current };
    if (params.type === 'mcp_oauth' && current.type === 'mcp_oauth') {
      const refresh = params.refresh;
      if (refresh && !current.refresh) throw invalidField('auth.refresh', 'this credential was created without refresh settings; create a new credential to add them');
      if (refresh?.token_endpoint_auth && current.refresh?.token_endpoint_auth.type === 'none') {
        throw invalidField('auth.refresh.token_endpoint_auth', 'the credential uses no client authentication; a client secret can only replace a stored one');
      }
      const auth: CredentialAuth = {
        ...current,
        ...(params.expires_at !== undefined ? { expires_at: params.expires_at } : {}),
        ...(refresh && current.refresh && refresh.scope !== undefined && refresh.scope !== null ? { refresh: { ...current.refresh, scope: refresh.scope === '' ? null : refresh.scope } } : {}),
      };
      const changes: CredentialSecret = {
        ...(params.access_token ? { access_token: params.access_token } : {}),
        ...(refresh?.refresh_token ? { refresh_token: refresh.refresh_token } : {}),
        ...(refresh?.token_endpoint_auth?.client_secret ? { client_secret: refresh.token_endpoint_auth.client_secret } : {}),
      };
      return Object.keys(changes).length ? { auth, secret: { ...(await secretNow()), ...changes } } : { auth };
    }
    throw invalidField('auth.type', `is "${current.type}" for this credential and cannot be changed`);
  })();
}

/** `BetaManagedAgentsVault`. */
export function vaultResource(vault: VaultRecord) {
  return { type: 'vault' as const, id: vault.id, display_name: vault.display_name, metadata: vault.metadata, created_at: vault.created_at, updated_at: vault.updated_at, archived_at: vault.archived_at };
}

/** `BetaManagedAgentsCredential`: never a secret field (the record holds them sealed, and they are not read here). */
export function credentialResource(credential: CredentialRecord) {
  return {
    type: 'vault_credential' as const,
    id: credential.id,
    vault_id: credential.vault_id,
    display_name: credential.display_name,
    metadata: credential.metadata,
    created_at: credential.created_at,
    updated_at: credential.updated_at,
    archived_at: credential.archived_at,
    auth: credential.auth,
  };
}
