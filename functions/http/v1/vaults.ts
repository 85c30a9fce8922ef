import { Hono } from 'hono';
import * as z from 'zod';
import { conflict, invalidField } from '@zero/agent/errors';
import { patchMetadata } from '@zero/integrations/environment-store';
import {
  credentialCreateParams,
  credentialResource,
  credentialUpdateParams,
  newCredentialAuth,
  updatedCredentialAuth,
  vaultCreateParams,
  vaultResource,
  vaultUpdateParams,
} from '@zero/integrations/managed/vault-params';
import { newCredentialId, newVaultId, type CredentialAuth, type CredentialRecord, type VaultRecord } from '@zero/runtime/vaults/vault-store';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery, queryBoolean } from './pages';

const listQuery = query(z.object({ ...pageQuery, include_archived: queryBoolean.optional() }));

/** The credential, among the vault's others, that already holds this `secret_name` or MCP server: one of each per vault. */
function clashing(others: readonly CredentialRecord[], auth: CredentialAuth): CredentialRecord | undefined {
  return others.find((other) => {
    if (other.archived_at) return false;
    if (auth.type === 'environment_variable') return other.auth.type === 'environment_variable' && other.auth.secret_name === auth.secret_name;
    return other.auth.type !== 'environment_variable' && other.auth.mcp_server_url === auth.mcp_server_url;
  });
}

/**
 * `/v1/vaults` and `/v1/vaults/:id/credentials` (`client.beta.vaults`, `.credentials`): each user's
 * vaults, reached by their owner only (another user's vault is a 404, as one that does not exist).
 * A credential's secret is write-only: sealed on the way in (see `@zero/runtime/vaults/sealer`),
 * never in an answer, an event, a log line or an error.
 */
export function vaultRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const vaults = deps.vaults;
  const open = async (ownerId: string, id: string) => {
    const vault = await (await vaults()).reachVault(ownerId, id);
    if (vault.archived_at) throw invalidField('vault_id', `vault "${id}" is archived: its credentials cannot be created or changed`);
    return vault;
  };

  app.post('/vaults', json(vaultCreateParams), async (c) => {
    const params = c.req.valid('json');
    const now = new Date().toISOString();
    const vault: VaultRecord = { v: 1, id: newVaultId(), owner: c.get('user').id, display_name: params.display_name, metadata: params.metadata ?? {}, created_at: now, updated_at: now, archived_at: null };
    await (await vaults()).putVault(vault);
    return c.json(vaultResource(vault));
  });

  app.get('/vaults', listQuery, async (c) => {
    const q = c.req.valid('query');
    const all = (await (await vaults()).listVaults(c.get('user').id)).filter((v) => q.include_archived || !v.archived_at);
    const page = pageOf(all, q);
    return c.json({ data: page.data.map(vaultResource), next_page: page.next_page });
  });

  app.get('/vaults/:id', async (c) => c.json(vaultResource(await (await vaults()).reachVault(c.get('user').id, c.req.param('id')))));

  app.post('/vaults/:id', json(vaultUpdateParams), async (c) => {
    const params = c.req.valid('json');
    const current = await open(c.get('user').id, c.req.param('id'));
    const next: VaultRecord = {
      ...current,
      display_name: params.display_name ?? current.display_name,
      metadata: params.metadata === null ? {} : patchMetadata(current.metadata, params.metadata),
    };
    if (JSON.stringify(next) === JSON.stringify(current)) return c.json(vaultResource(current));
    next.updated_at = new Date().toISOString();
    await (await vaults()).putVault(next);
    return c.json(vaultResource(next));
  });

  app.post('/vaults/:id/archive', async (c) => {
    const current = await (await vaults()).reachVault(c.get('user').id, c.req.param('id'));
    if (current.archived_at) return c.json(vaultResource(current));
    const now = new Date().toISOString();
    const next = { ...current, archived_at: now, updated_at: now };
    await (await vaults()).putVault(next);
    return c.json(vaultResource(next));
  });

  app.delete('/vaults/:id', async (c) => {
    const current = await (await vaults()).reachVault(c.get('user').id, c.req.param('id'));
    await (await vaults()).deleteVault(current.owner, current.id);
    return c.json({ type: 'vault_deleted' as const, id: current.id });
  });

  app.post('/vaults/:id/credentials', json(credentialCreateParams), async (c) => {
    const params = c.req.valid('json');
    const owner = c.get('user').id;
    const vault = await open(owner, c.req.param('id'));
    const { auth, secret } = newCredentialAuth(params.auth);
    const clash = clashing(await (await vaults()).listCredentials(owner, vault.id), auth);
    if (clash) throw conflict(`vault "${vault.id}" already holds credential "${clash.id}" with this ${auth.type === 'environment_variable' ? 'secret_name' : 'mcp_server_url'}: update or archive it`);
    const now = new Date().toISOString();
    const record = await (await vaults()).putCredential(
      owner,
      { v: 1, id: newCredentialId(), vault_id: vault.id, display_name: params.display_name ?? null, metadata: params.metadata ?? {}, created_at: now, updated_at: now, archived_at: null, auth },
      secret,
    );
    return c.json(credentialResource(record));
  });

  app.get('/vaults/:id/credentials', listQuery, async (c) => {
    const q = c.req.valid('query');
    const owner = c.get('user').id;
    const vault = await (await vaults()).reachVault(owner, c.req.param('id'));
    const all = (await (await vaults()).listCredentials(owner, vault.id)).filter((r) => q.include_archived || !r.archived_at);
    const page = pageOf(all, q);
    return c.json({ data: page.data.map(credentialResource), next_page: page.next_page });
  });

  app.get('/vaults/:id/credentials/:credential', async (c) => {
    const owner = c.get('user').id;
    const vault = await (await vaults()).reachVault(owner, c.req.param('id'));
    return c.json(credentialResource(await (await vaults()).reachCredential(owner, vault.id, c.req.param('credential'))));
  });

  app.post('/vaults/:id/credentials/:credential', json(credentialUpdateParams), async (c) => {
    const params = c.req.valid('json');
    const owner = c.get('user').id;
    const vault = await open(owner, c.req.param('id'));
    const current = await (await vaults()).reachCredential(owner, vault.id, c.req.param('credential'));
    if (current.archived_at) throw invalidField('credential_id', `credential "${current.id}" is archived: it cannot be changed`);
    const { auth, secret } = params.auth ? await updatedCredentialAuth(current.auth, async () => (await vaults()).openSecret(current), params.auth) : { auth: current.auth, secret: undefined };
    const next: CredentialRecord = {
      ...current,
      auth,
      display_name: params.display_name === undefined || params.display_name === null ? current.display_name : params.display_name,
      metadata: params.metadata === null ? {} : patchMetadata(current.metadata, params.metadata),
    };
    if (!secret && JSON.stringify(next) === JSON.stringify(current)) return c.json(credentialResource(current));
    next.updated_at = new Date().toISOString();
    return c.json(credentialResource(await (await vaults()).putCredential(owner, next, secret)));
  });

  app.post('/vaults/:id/credentials/:credential/archive', async (c) => {
    const owner = c.get('user').id;
    const vault = await (await vaults()).reachVault(owner, c.req.param('id'));
    const current = await (await vaults()).reachCredential(owner, vault.id, c.req.param('credential'));
    if (current.archived_at) return c.json(credentialResource(current));
    const now = new Date().toISOString();
    return c.json(credentialResource(await (await vaults()).putCredential(owner, { ...current, archived_at: now, updated_at: now })));
  });

  app.post('/vaults/:id/credentials/:credential/mcp_oauth_validate', async (c) => {
    const owner = c.get('user').id;
    const vault = await (await vaults()).reachVault(owner, c.req.param('id'));
    const credential = await (await vaults()).reachCredential(owner, vault.id, c.req.param('credential'));
    const { validateMcpCredential } = await import('@zero/integrations/managed/mcp-oauth-validate');
    return c.json(await validateMcpCredential(await vaults(), owner, credential, deps.outbound));
  });

  app.delete('/vaults/:id/credentials/:credential', async (c) => {
    const owner = c.get('user').id;
    const vault = await (await vaults()).reachVault(owner, c.req.param('id'));
    const current = await (await vaults()).reachCredential(owner, vault.id, c.req.param('credential'));
    await (await vaults()).deleteCredential(owner, vault.id, current.id);
    return c.json({ type: 'vault_credential_deleted' as const, id: current.id });
  });

  return app;
}
