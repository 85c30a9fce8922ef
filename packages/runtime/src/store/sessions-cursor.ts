import * as z from 'zod';
import { ZeroError } from '@zero/agent/errors';
import { keys } from './keys';

/**
 * A page cursor of `listSessionsFor` is the query's LastEvaluatedKey: the
 * user's membership item's table and index keys, base64url JSON.
 */
export function encodeSessionsCursor(lastKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(lastKey)).toString('base64url');
}

/**
 * A cursor is refused unless it is exactly the shape `encodeSessionsCursor`
 * gives, for this user: DynamoDB answers any other start key with an error,
 * and another user's would list their sessions.
 */
export function decodeSessionsCursor(cursor: string, userId: string): Record<string, unknown> {
  const refused = () => new ZeroError('invalid_request', 'cursor: not a cursor this API returned for you', { field: 'cursor' });
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const key = z
    .strictObject({
      pk: z.string().startsWith(keys.sessionPrefix).max(300),
      sk: z.literal(keys.member(userId)),
      gsi1pk: z.literal(keys.userSessions(userId)),
      gsi1sk: z.string().min(1).max(300),
    })
    .safeParse(decoded);
  if (!key.success) throw refused();
  return key.data;
}
