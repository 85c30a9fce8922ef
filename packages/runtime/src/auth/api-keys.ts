import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ZeroError } from '@zero/agent/errors';
import { apiKeyItem, apiKeyKey, userKeyItem, userKeyKey, userKeysOf, type ApiKeyInfo } from '../store/items/api-key';
import { Table } from '../store/table';

export type { ApiKeyInfo } from '../store/items/api-key';

export interface ApiKeyOwner {
  id: string;
  name?: string;
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

/** API keys: shown once at creation, stored only as a SHA-256 hash. */
export class ApiKeyStore {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  async create(owner: ApiKeyOwner, label?: string): Promise<{ key: string; info: ApiKeyInfo }> {
    const keyId = randomBytes(6).toString('hex');
    const key = `zk_${keyId}_${randomBytes(24).toString('base64url')}`;
    const info: ApiKeyInfo = { key_id: keyId, user_id: owner.id, ...(owner.name ? { name: owner.name } : {}), ...(label ? { label } : {}), created_at: new Date().toISOString() };
    await this.items.put({ ...apiKeyKey(hash(key)), v: apiKeyItem.version, ...info });
    await this.items.put({ ...userKeyKey(owner.id, keyId), v: userKeyItem.version, ...info, hash: hash(key) });
    return { key, info };
  }

  /** The key's owner, or undefined for an unknown or revoked key. */
  async verify(key: string): Promise<ApiKeyInfo | undefined> {
    if (!/^zk_[0-9a-f]{12}_[A-Za-z0-9_-]{32}$/.test(key)) return undefined;
    const item = await this.items.get(apiKeyKey(hash(key)));
    return item && apiKeyItem.decode(item);
  }

  async list(userId: string): Promise<ApiKeyInfo[]> {
    const items = await this.items.query(userKeysOf(userId));
    return items.map((item) => {
      const { hash: _hash, ...info } = userKeyItem.decode(item);
      return info;
    });
  }

  async revoke(userId: string, keyId: string): Promise<void> {
    const item = await this.items.get(userKeyKey(userId, keyId));
    if (!item) throw new ZeroError('not_found', `no key "${keyId}" for user "${userId}"`, { field: 'key_id' });
    await this.items.delete(apiKeyKey(userKeyItem.decode(item).hash));
    await this.items.delete(userKeyKey(userId, keyId));
  }
}

/** Compares a presented secret with a configured one in constant time. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

