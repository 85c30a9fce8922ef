import * as z from 'zod';

/**
 * The vault answers of the Managed Agents API, written from Anthropic's SDK types
 * (`@anthropic-ai/sdk/resources/beta/vaults/{vaults,credentials}`): every field the types mark as
 * required, with its type; strict, so an answer carrying a field the types do not declare (a
 * secret) fails to parse.
 */

/** `BetaManagedAgentsVault`. */
export const vaultSchema = z.strictObject({
  id: z.string().regex(/^vlt_/),
  type: z.literal('vault'),
  display_name: z.string(),
  metadata: z.record(z.string(), z.string()),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const vaultPageSchema = z.object({ data: z.array(vaultSchema), next_page: z.string().nullable().optional() });
/** `BetaManagedAgentsDeletedVault`. */
export const deletedVaultSchema = z.strictObject({ id: z.string(), type: z.literal('vault_deleted') });

const tokenEndpointAuth = z.strictObject({ type: z.enum(['none', 'client_secret_basic', 'client_secret_post']) });
/** `BetaManagedAgentsEnvironmentVariableAuthResponse` | `BetaManagedAgentsStaticBearerAuthResponse` | `BetaManagedAgentsMCPOAuthAuthResponse`. */
const authSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('environment_variable'),
    secret_name: z.string(),
    injection_location: z.strictObject({ header: z.boolean(), body: z.boolean() }),
    networking: z.union([z.strictObject({ type: z.literal('unrestricted') }), z.strictObject({ type: z.literal('limited'), allowed_hosts: z.array(z.string()) })]),
  }),
  z.strictObject({ type: z.literal('static_bearer'), mcp_server_url: z.string() }),
  z.strictObject({
    type: z.literal('mcp_oauth'),
    mcp_server_url: z.string(),
    expires_at: z.string().nullable().optional(),
    refresh: z
      .strictObject({ client_id: z.string(), token_endpoint: z.string(), token_endpoint_auth: tokenEndpointAuth, resource: z.string().nullable().optional(), scope: z.string().nullable().optional() })
      .nullable()
      .optional(),
  }),
]);

/** `BetaManagedAgentsCredential`. */
export const credentialSchema = z.strictObject({
  id: z.string().regex(/^vcrd_/),
  type: z.literal('vault_credential'),
  vault_id: z.string(),
  auth: authSchema,
  metadata: z.record(z.string(), z.string()),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  display_name: z.string().nullable().optional(),
});
export const credentialPageSchema = z.object({ data: z.array(credentialSchema), next_page: z.string().nullable().optional() });
/** `BetaManagedAgentsDeletedCredential`. */
export const deletedCredentialSchema = z.strictObject({ id: z.string(), type: z.literal('vault_credential_deleted') });

/** `BetaManagedAgentsRefreshHTTPResponse`. */
const httpResponse = z.strictObject({ body: z.string(), body_truncated: z.boolean(), content_type: z.string(), status_code: z.number().int() });
/** `BetaManagedAgentsCredentialValidation`. */
export const credentialValidationSchema = z.strictObject({
  type: z.literal('vault_credential_validation'),
  credential_id: z.string(),
  vault_id: z.string(),
  has_refresh_token: z.boolean(),
  mcp_probe: z.strictObject({ method: z.string(), http_response: httpResponse.nullable() }).nullable(),
  refresh: z.strictObject({ status: z.enum(['succeeded', 'failed', 'connect_error', 'no_refresh_token']), http_response: httpResponse.nullable() }).nullable(),
  status: z.enum(['valid', 'invalid', 'unknown']),
  validated_at: z.string(),
});
