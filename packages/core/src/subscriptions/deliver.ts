import type { CallbackOptions, CallbackResult } from '../webhooks/callback';
import { signStandardWebhook } from './standard-webhooks';

/**
 * POSTs one event to a subscriber, signed in the Standard Webhooks format,
 * through the outbound guard. The same `webhook-id` on every attempt (and on
 * any later re-send of the same event), so the receiver can drop repeats;
 * each attempt is signed at its own time. Retries network failures, 429 and
 * 5xx with exponential backoff; a refused address or another status is final.
 * Must not throw: the outcome is data.
 */
export async function deliverEvent(url: string, secret: string, id: string, body: string, options: CallbackOptions = {}): Promise<CallbackResult> {
  const { OutboundBlockedError, guardedFetch } = await import('../net/outbound');
  const attempts = options.attempts ?? 4;
  const target = new URL(url).origin;
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
        headers: { 'content-type': 'application/json', 'user-agent': 'Zero-Events/1', ...signStandardWebhook(secret, id, Math.floor(Date.now() / 1000), body) },
      });
      if (response.status >= 200 && response.status < 300) return { status: 'delivered', attempts: attempt, last_status: response.status };
      retry = response.status === 429 || response.status >= 500;
      result = { status: 'failed', attempts: attempt, last_status: response.status, last_error: `${target} answered ${response.status}` };
    } catch (error) {
      retry = !OutboundBlockedError.isInstance(error);
      // Errors name the URL they failed on; only its origin may be shown (its path may carry a token).
      result = { status: 'failed', attempts: attempt, last_error: String((error as Error)?.message ?? error).split(url).join(target).slice(0, 500) };
    }
    if (!retry) break;
    if (attempt < attempts) await new Promise((r) => setTimeout(r, (options.retryBaseMs ?? 1000) * 2 ** (attempt - 1)));
  }
  return result;
}
