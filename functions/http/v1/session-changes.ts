import { compareManaged, readSessionUpdates, type ManagedEvent } from '@zero/integrations/managed';
import type { V1Deps } from './deps';

/** How often a stream looks for changes made by another process (an update, a delete). */
const POLL_MS = 2000;

const listeners = new Map<string, Set<() => void>>();

/** Wakes this process's streams of the session: it was updated or deleted (`POST`/`DELETE /v1/sessions/:id`, after the write). */
export function announceChange(sessionId: string) {
  for (const listener of listeners.get(sessionId) ?? []) listener();
}

/**
 * Follows what happens to a session outside its event log, for a stream that started after `from`: each
 * `session.updated` made after it is handed to `onUpdate` (at once when made in this process, else within
 * {@link POLL_MS}; an update older than the stream only when it is after `from`, as a resumed stream replays).
 * Resolves true when the session is deleted, false when `signal` is aborted first. Never rejects: a failed read is read again.
 */
export async function followSessionChanges(
  deps: Pick<V1Deps, 'sessions' | 'artifacts'>,
  sessionId: string,
  from: Pick<ManagedEvent, 'position' | 'k'>,
  signal: AbortSignal,
  onUpdate: (event: ManagedEvent) => Promise<void>,
): Promise<boolean> {
  let known: Map<string, ManagedEvent> | undefined;
  let wake = () => {};
  const listener = () => wake();
  const set = listeners.get(sessionId) ?? new Set();
  listeners.set(sessionId, set.add(listener));
  try {
    while (!signal.aborted) {
      try {
        if (!(await deps.sessions.getSession(sessionId))) return true;
        const updates = await readSessionUpdates(deps.artifacts, sessionId, known);
        for (const [key, update] of updates) {
          if (known?.has(key) || (!known && compareManaged(update, from) <= 0)) continue;
          if (signal.aborted) return false;
          await onUpdate(update);
        }
        known = updates;
      } catch {
        // Read again at the next turn.
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, POLL_MS);
        wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return false;
  } finally {
    set.delete(listener);
    if (!set.size) listeners.delete(sessionId);
  }
}
