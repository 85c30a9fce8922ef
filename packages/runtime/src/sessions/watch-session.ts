import type { IdentifiedEvent } from '@zero/agent/events/recorder';
import { followSession, type FeedOptions } from './feed';
import { resumeIfStalled } from './resume';
import type { SessionRunnerDeps } from './runner-deps';

/**
 * A session's live view (see `followSession`) that also keeps the session
 * going: while someone watches, a run whose holder died is carried on once
 * its lease expires. The watch ends when `signal` is aborted.
 */
export function watchSession(
  deps: Pick<SessionRunnerDeps, 'sessions' | 'runs' | 'leases' | 'queue'>,
  sessionId: string,
  options: FeedOptions & { signal: AbortSignal },
): AsyncGenerator<IdentifiedEvent> {
  const watchdog = setInterval(() => void resumeIfStalled(deps, sessionId).catch(() => undefined), deps.leases.ttlMs);
  options.signal.addEventListener('abort', () => clearInterval(watchdog), { once: true });
  if (options.signal.aborted) clearInterval(watchdog);
  return followSession(deps, sessionId, options);
}
