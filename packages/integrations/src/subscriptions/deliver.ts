import type { CallbackOptions } from '../webhooks/callback';
import { signStandardWebhook } from './standard-webhooks';

/** How one attempt went: delivered (2xx), or failed, and then whether trying again may help. */
export interface AttemptOutcome {
  delivered: boolean;
  /** Network failures, 429 and 5xx: worth another attempt. A refused address or another status is final. */
  retry: boolean;
  last_status?: number;
  /** Names the target by its origin only. */
  last_error?: string;
}

/**
 * POSTs one event once, signed in the Standard Webhooks format at this
 * moment, through the outbound guard. `id` is the message's `webhook-id`,
 * the same on every attempt, so the receiver can drop repeats. `extra`
 * headers (a hook's `x-zero-*` signature) are added. Must not throw: the
 * outcome is data.
 */
export async function sendSignedOnce(
  url: string,
  secret: string,
  id: string,
  body: string,
  options: CallbackOptions = {},
  extra: Record<string, string> = {},
): Promise<AttemptOutcome> {
  const { OutboundBlockedError, guardedFetch } = await import('@zero/agent/net/outbound');
  const target = new URL(url).origin;
  try {
    const response = await guardedFetch(url, {
      ...options,
      method: 'POST',
      body,
      maxBytes: 4096,
      timeoutMs: options.timeoutMs ?? 10_000,
      headers: { 'content-type': 'application/json', 'user-agent': 'Zero-Events/1', ...extra, ...signStandardWebhook(secret, id, Math.floor(Date.now() / 1000), body) },
    });
    if (response.status >= 200 && response.status < 300) return { delivered: true, retry: false, last_status: response.status };
    return { delivered: false, retry: response.status === 429 || response.status >= 500, last_status: response.status, last_error: `${target} answered ${response.status}` };
  } catch (error) {
    // Errors name the URL they failed on; only its origin may be shown (its path may carry a token).
    const message = String((error as Error)?.message ?? error).split(url).join(target).slice(0, 500);
    return { delivered: false, retry: !OutboundBlockedError.isInstance(error), last_error: message };
  }
}
