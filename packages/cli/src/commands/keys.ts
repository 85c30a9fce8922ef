import { connect } from '../connect';
import { table } from '../table';

/** `zero keys list`. */
export async function listKeys(profile: string | undefined, options: { user?: string }): Promise<number> {
  const { client } = await connect(profile);
  const { keys } = await client.listKeys(options.user);
  if (keys.length === 0) process.stderr.write('no keys\n');
  else process.stdout.write(`${table([['KEY ID', 'USER', 'LABEL', 'CREATED'], ...keys.map((k) => [k.key_id, k.user_id, k.label ?? '', k.created_at])])}\n`);
  return 0;
}

/** `zero keys create`: prints the key (shown once) on stdout, the rest on stderr. */
export async function createKey(profile: string | undefined, options: { user?: string; name?: string; label?: string }): Promise<number> {
  const { client } = await connect(profile);
  const created = await client.createKey({ ...(options.user ? { user_id: options.user } : {}), ...(options.name ? { name: options.name } : {}), ...(options.label ? { label: options.label } : {}) });
  process.stderr.write(`key ${created.key_id} for ${created.user_id}. ${created.note}\n`);
  process.stdout.write(`${created.key}\n`);
  return 0;
}

/** `zero keys revoke <key_id>`. */
export async function revokeKey(profile: string | undefined, keyId: string, options: { user?: string }): Promise<number> {
  const { client } = await connect(profile);
  await client.revokeKey(keyId, options.user);
  process.stderr.write(`revoked ${keyId}\n`);
  return 0;
}
