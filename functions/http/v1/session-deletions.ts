import type { V1Deps } from './deps';

/** How often a stream looks whether its session still exists, when it was deleted by another process. */
const POLL_MS = 2000;

const listeners = new Map<string, Set<() => void>>();

/** Tells this process's streams of the session that it is deleted (`DELETE /v1/sessions/:id`, after the delete). */
export function announceDeleted(sessionId: string) {
  for (const listener of listeners.get(sessionId) ?? []) listener();
}

/**
 * Resolves true once the session is deleted: at once when it was deleted in this process, else within
 * {@link POLL_MS}; false when `signal` is aborted first. Never rejects (a failed read is asked again).
 */
export function whenDeleted(deps: Pick<V1Deps, 'sessions'>, sessionId: string, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const set = listeners.get(sessionId) ?? new Set();
    listeners.set(sessionId, set);
    const finish = (deleted: boolean) => {
      clearTimeout(timer);
      set.delete(onDeleted);
      if (!set.size) listeners.delete(sessionId);
      signal.removeEventListener('abort', onAbort);
      resolve(deleted);
    };
    const onDeleted = () => finish(true);
    const onAbort = () => finish(false);
    const poll = () => {
      timer = setTimeout(async () => {
        const session = await deps.sessions.getSession(sessionId).catch(() => 'unknown' as const);
        if (signal.aborted) return;
        if (session === undefined) finish(true);
        else poll();
      }, POLL_MS);
    };
    set.add(onDeleted);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) finish(false);
    else poll();
  });
}
