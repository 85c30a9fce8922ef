import { randomUUID } from 'node:crypto';
import type { OutboundOptions } from '../net/outbound';
import { signGeneric } from './signature';

/** How callbacks are sent: through the outbound guard (its resolver injectable for tests), retried with backoff. */
export interface CallbackOptions extends OutboundOptions {
  /** Attempts in all (default 4). */
  attempts?: number;
  /** Wait before the second attempt, doubled for each further one (default 1000 ms). */
  retryBaseMs?: number;
  /** Time one attempt may take (default 10 s). */
  timeoutMs?: number;
}

export interface CallbackResult {
  status: 'delivered' | 'failed';
  attempts: number;
  last_status?: number;
  last_error?: string;
}

/** Why a callback URL would be refused before any request, or undefined (the same checks as web_fetch's URL checks). */
export async function refusedCallbackUrl(url: string, allow?: readonly string[]): Promise<string | undefined> {
  const { refusedUrl } = await import('../net/outbound');
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

/**
 * POSTs `body` to `url`, signed like a generic delivery (`X-Zero-Timestamp`,
 * `X-Zero-Signature` over `v1:<timestamp>:<delivery>:<event>:<body>`), with
 * one `X-Zero-Delivery` id across attempts so the receiver can drop repeats. Retries network
 * failures, 429 and 5xx with exponential backoff; a refused address or any
 * other status is final. Must not throw: the outcome is data.
 */
export async function postSignedCallback(url: string, body: string, secret: string, event: string, options: CallbackOptions = {}): Promise<CallbackResult> {
  // The outbound guard (ipaddr.js, undici) is loaded on first use, not at cold start.
  const { OutboundBlockedError, guardedFetch } = await import('../net/outbound');
  const attempts = options.attempts ?? 4;
  const delivery = randomUUID();
  const target = callbackTarget(url);
  let result: CallbackResult = { status: 'failed', attempts: 0 };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let retry = false;
    try {
      const response = await guardedFetch(url, {
        ...options,
        method: 'POST',
        body,
        maxBytes: 4096,
        timeoutMs: options.timeoutMs ?? 10_000,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Zero-Webhooks/1',
          'x-zero-event': event,
          'x-zero-delivery': delivery,
          ...signGeneric(secret, body, { delivery, event }),
        },
      });
      if (response.status >= 200 && response.status < 300) return { status: 'delivered', attempts: attempt, last_status: response.status };
      retry = response.status === 429 || response.status >= 500;
      result = { status: 'failed', attempts: attempt, last_status: response.status, last_error: `${target} answered ${response.status}` };
    } catch (error) {
      retry = !OutboundBlockedError.isInstance(error);
      // Errors name the URL they failed on; only its origin may be shown.
      const message = String((error as Error)?.message ?? error).split(url).join(target);
      result = { status: 'failed', attempts: attempt, last_error: message.slice(0, 500) };
    }
    if (!retry) break;
    if (attempt < attempts) await new Promise((r) => setTimeout(r, (options.retryBaseMs ?? 1000) * 2 ** (attempt - 1)));
  }
  return result;
}
