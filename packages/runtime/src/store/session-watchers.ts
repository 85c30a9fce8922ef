import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sessionWatcherItem, sessionWatcherKey } from './items/session-watcher';
import { keys } from './keys';
import { Table } from './table';

/** How long a live view counts as open without a sign of life from its stream. */
export const WATCH_TTL_MS = 45_000;
/** How often an open stream says it is still there (well inside `WATCH_TTL_MS`). */
export const WATCH_REFRESH_MS = 15_000;

/** Who opens a live view: the caller as auth verified them (any `User` is one), by id and display name. */
export interface Viewer {
  id: string;
  name?: string;
}

/** Who watches a session now: one member per entry, with the earliest of their open views. */
export interface Watcher {
  user_id: string;
  name?: string;
  since: string;
}

/**
 * Who has a live view open on a session, across every instance: one item per
 * open stream in the session's partition, written when the stream opens,
 * pushed forward every WATCH_REFRESH_MS while it lives and deleted when it
 * ends. A stream whose process died stops counting WATCH_TTL_MS later.
 */
export class SessionWatchers {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  /**
   * Records a view of `sessionId` by `user` until `signal` aborts or the
   * returned function is called (which a caller awaits where the process may
   * be frozen right after, as a Lambda invocation is once its response ends).
   */
  async watch(sessionId: string, user: Viewer, signal: AbortSignal): Promise<() => Promise<void>> {
    const key = sessionWatcherKey(sessionId, user.id, randomBytes(8).toString('hex'));
    const since = new Date().toISOString();
    const write = () => {
      const until = Date.now() + WATCH_TTL_MS;
      const item = { user_id: user.id, ...(user.name ? { name: user.name } : {}), since, until, expires_at: Math.ceil(until / 1000) + 3600 };
      return this.items.put({ ...key, v: sessionWatcherItem.version, ...item });
    };
    await write();
    const refresh = setInterval(() => void write().catch(() => undefined), WATCH_REFRESH_MS);
    refresh.unref?.();
    let ended: Promise<void> | undefined;
    const end = () => {
      clearInterval(refresh);
      ended ??= this.items.delete(key).then(
        () => undefined,
        () => undefined,
      );
      return ended;
    };
    signal.addEventListener('abort', () => void end(), { once: true });
    if (signal.aborted) await end();
    return end;
  }

  /** The members watching now, each once, in the order they started. */
  async list(sessionId: string): Promise<Watcher[]> {
    const now = Date.now();
    const items = await this.items.query({ pk: keys.session(sessionId), prefix: keys.watcherPrefix, consistent: true });
    const byUser = new Map<string, Watcher>();
    for (const item of items) {
      const watch = sessionWatcherItem.decode(item);
      if (watch.until <= now) continue;
      const seen = byUser.get(watch.user_id);
      if (!seen || watch.since < seen.since) byUser.set(watch.user_id, { user_id: watch.user_id, ...(watch.name ? { name: watch.name } : {}), since: watch.since });
    }
    return [...byUser.values()].sort((a, b) => a.since.localeCompare(b.since));
  }
}
