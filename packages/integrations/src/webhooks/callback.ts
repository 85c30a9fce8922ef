import type { OutboundOptions } from '@zero/agent/net/outbound';

/** Resolves a hook's (or a subscription's) secret reference to the secret; undefined when it is not set. */
export type SecretResolver = (ref: string) => string | undefined;

/** How callbacks are sent: through the outbound guard (its resolver injectable for tests), retried with backoff. */
export interface CallbackOptions extends OutboundOptions {
  /** Attempts in all (default 4). */
  attempts?: number;
  /** Wait before the second attempt, doubled for each further one (default 1000 ms). */
  retryBaseMs?: number;
  /** Time one attempt may take (default 10 s). */
  timeoutMs?: number;
  /**
   * Whether the process that made an attempt waits to make the next (default true). False leaves
   * every retry to the outbox's sweep, as if the process ended after each attempt.
   */
  waitForRetries?: boolean;
}

export interface CallbackResult {
  status: 'delivered' | 'failed';
  attempts: number;
  last_status?: number;
  last_error?: string;
}

/** Why a callback URL would be refused before any request, or undefined (the same checks as web_fetch's URL checks). */
export async function refusedCallbackUrl(url: string, allow?: readonly string[]): Promise<string | undefined> {
  const { refusedUrl } = await import('@zero/agent/net/outbound');
  return refusedUrl(new URL(url), allow);
}

/** The part of a URL that may be shown: scheme and host. Its path and query may carry a token (Slack-style URLs). */
export function callbackTarget(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}
