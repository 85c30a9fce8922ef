import { createHash } from 'node:crypto';
import type { ArtifactStore } from '../store/artifact-store';
import type * as z from 'zod';
import { invalidField } from '../errors';
import type { SubscriptionEvent, subscriptionInputSchema } from '../wire';
import type { CallbackOptions } from '../webhooks/callback';
import type { SecretResolver } from '../webhooks/webhooks';
import { deliverEvent } from './deliver';
import { SubscriptionStore } from './subscription-store';
import { errorText, log } from '../log';

/** How a deployment tells other systems: where subscriptions live, their secrets, how deliveries go out. */
export interface SubscriptionSettings {
  artifacts: ArtifactStore;
  secret: SecretResolver;
  delivery: CallbackOptions;
  /** How long the list of subscriptions is kept (default 10 s). */
  cacheMs?: number;
}

/** An event as subscribers receive it: ids and outcomes, never what was said. */
export interface ZeroEvent {
  type: SubscriptionEvent;
  /** Names the occurrence: the same event published twice (a redelivered job) gets the same message id. */
  key: string;
  data: { session_id: string; run_id?: string; agent_id?: string; project_id?: string; status?: string; reason?: string; pending?: string[] };
}

const stores = new WeakMap<ArtifactStore, SubscriptionStore>();

/** The store of a deployment's subscriptions, one per bucket client (so its cache is shared by routes and events). */
export function subscriptionStore(settings: Pick<SubscriptionSettings, 'artifacts' | 'cacheMs'>): SubscriptionStore {
  let store = stores.get(settings.artifacts);
  if (!store) stores.set(settings.artifacts, (store = new SubscriptionStore(settings.artifacts, settings.cacheMs)));
  return store;
}

/** The message id of an event: stable for its type and key, so a re-send is recognisably the same message. */
export function eventMessageId(event: Pick<ZeroEvent, 'type' | 'key'>): string {
  return `msg_${createHash('sha256').update(`${event.type}:${event.key}`).digest('base64url').slice(0, 27)}`;
}

/**
 * Sends an event to every subscription that asked for its type, all at
 * once; each delivery is retried on its own. Must not throw: failures are
 * logged (with the subscription and the target's origin, never its URL).
 */
export async function publishEvent(settings: SubscriptionSettings, event: ZeroEvent): Promise<void> {
  try {
    const wanted = (await subscriptionStore(settings).list()).filter((s) => s.events.includes(event.type));
    if (wanted.length === 0) return;
    const id = eventMessageId(event);
    const body = JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), data: event.data });
    await Promise.all(
      wanted.map(async (subscription) => {
        const secret = settings.secret(subscription.secret_ref);
        const result = secret
          ? await deliverEvent(subscription.url, secret, id, body, settings.delivery)
          : { status: 'failed' as const, attempts: 0, last_error: `${subscription.secret_ref} is not set, so the event cannot be signed` };
        if (result.status === 'failed') {
          log.warn('event delivery failed', { subscription_id: subscription.id, type: event.type, message_id: id, ...result });
        }
      }),
    );
  } catch (error) {
    log.error('publishing an event failed', { type: event.type, session_id: event.data.session_id, error: errorText(error) });
  }
}

/** Creates or replaces a subscription after checking that its secret is set and its URL may be reached (400s naming the field). */
export async function putSubscription(settings: SubscriptionSettings, id: string, input: z.output<typeof subscriptionInputSchema>) {
  if (!settings.secret(input.secret_ref)) throw invalidField('secret_ref', `${input.secret_ref} is not set in the server's environment`);
  const { refusedUrl } = await import('../net/outbound');
  const refused = refusedUrl(new URL(input.url), settings.delivery.allow);
  if (refused) throw invalidField('url', refused);
  return subscriptionStore(settings).put(id, input);
}
