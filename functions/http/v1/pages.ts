import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';

/** `limit` and `page` of a cursor-paged list. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  page: z.string().max(2000).optional(),
};

/** A page of a list held in memory: the cursor is the offset, opaque to the client. */
export function pageOf<T>(items: readonly T[], query: { limit?: number; page?: string }, defaultLimit = 20) {
  const start = query.page === undefined ? 0 : offsetOf(query.page);
  const limit = query.limit ?? defaultLimit;
  const data = items.slice(start, start + limit);
  const next = start + limit < items.length ? Buffer.from(`o:${start + limit}`).toString('base64url') : null;
  return { data, next_page: next };
}

function offsetOf(page: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(page, 'base64url').toString());
  if (!match) throw invalidField('page', 'is not a cursor this list handed out');
  return Number(match[1]);
}

/** `true`/`false` in a query string. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');
