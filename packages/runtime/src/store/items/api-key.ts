import * as z from 'zod';
import { apiKeyInfoSchema } from '@zero/agent/wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `APIKEY#<sha256 of the key>` / `KEY`: looked up on every request bearing the key. */
export const apiKeyKey = (hash: string) => ({ pk: keys.apiKey(hash), sk: keys.apiKeySort });

/** `USER#<id>` / `KEY#<key id>`: the same key listed under its owner, with the hash to revoke it by. */
export const userKeyKey = (userId: string, keyId: string) => keys.userKey(userId, keyId);
export const userKeysOf = (userId: string) => ({ pk: keys.userKey(userId, '').pk, prefix: keys.userKeyPrefix });

/** What is known of an API key (the shape the API answers with); the key itself is shown once and never stored. */
export type ApiKeyInfo = z.infer<typeof apiKeyInfoSchema>;

export const userKeySchema = apiKeyInfoSchema.extend({ hash: z.string() });
export type UserKey = z.infer<typeof userKeySchema>;

/** Versions: 0, written without `v` (before issue 13); 1, the same fields with `v: 1`. Decodes to `ApiKeyInfo`. */
export const apiKeyItem = storedItem<ApiKeyInfo>('api key', { 0: apiKeyInfoSchema, 1: apiKeyInfoSchema });

/** Versions: as `apiKeyItem`, with the key's hash. */
export const userKeyItem = storedItem<UserKey>('user api key', { 0: userKeySchema, 1: userKeySchema });
