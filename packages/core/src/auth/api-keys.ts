import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../errors';
import { keys } from '../store/keys';

export interface ApiKeyOwner {
  id: string;
  name?: string;
}

export interface ApiKeyInfo {
  key_id: string;
  user_id: string;
  name?: string;
  label?: string;
  created_at: string;
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

/** API keys: shown once at creation, stored only as a SHA-256 hash. */
export class ApiKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(owner: ApiKeyOwner, label?: string): Promise<{ key: string; info: ApiKeyInfo }> {
    const keyId = randomBytes(6).toString('hex');
    const key = `zk_${keyId}_${randomBytes(24).toString('base64url')}`;
    const info: ApiKeyInfo = { key_id: keyId, user_id: owner.id, ...(owner.name ? { name: owner.name } : {}), ...(label ? { label } : {}), created_at: new Date().toISOString() };
    await this.db.send(new PutCommand({ TableName: this.table, Item: { pk: keys.apiKey(hash(key)), sk: 'KEY', ...info } }));
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...keys.userKey(owner.id, keyId), ...info, hash: hash(key) } }));
    return { key, info };
  }

  /** The key's owner, or undefined for an unknown or revoked key. */
  async verify(key: string): Promise<ApiKeyInfo | undefined> {
    if (!/^zk_[0-9a-f]{12}_[A-Za-z0-9_-]{32}$/.test(key)) return undefined;
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.apiKey(hash(key)), sk: 'KEY' } }));
    return Item ? pickInfo(Item) : undefined;
  }

  async list(userId: string): Promise<ApiKeyInfo[]> {
    const { pk } = keys.userKey(userId, '');
    const { Items } = await this.db.send(
      new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :k)', ExpressionAttributeValues: { ':pk': pk, ':k': 'KEY#' } }),
    );
    return (Items ?? []).map((item) => pickInfo(item));
  }

  async revoke(userId: string, keyId: string): Promise<void> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.userKey(userId, keyId) }));
    if (!Item) throw notFound(`no key "${keyId}" for user "${userId}"`, 'key_id');
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: keys.apiKey(String(Item.hash)), sk: 'KEY' } }));
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: keys.userKey(userId, keyId) }));
  }
}

/** Compares a presented secret with a configured one in constant time. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function pickInfo(item: Record<string, unknown>): ApiKeyInfo {
  const { pk: _pk, sk: _sk, hash: _hash, ...info } = item;
  return info as unknown as ApiKeyInfo;
}
