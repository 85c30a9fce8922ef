import { createHash } from 'node:crypto';
import type { ArtifactStore } from '../store/artifact-store';
import type * as z from 'zod';
import { invalidField } from '../errors';
import type { SubscriptionEvent, subscriptionInputSchema } from '../wire';
import type { CallbackOptions } from '../webhooks/callback';
import type { SecretResolver } from '../webhooks/webhooks';
import type { OutboxDeps } from './outbox';
import type { OutboxDelivery, OutboxStore } from './outbox-store';
import { SubscriptionStore } from './subscription-store';
import { errorText, log } from '../log';

/** How a deployment tells other systems: where subscriptions live, their secrets, how deliveries go out. */
export interface SubscriptionSettings {
  artifacts: ArtifactStore;
  /** The deliveries on their way, in the table: what survives the process that started them. */
  outbox: OutboxStore;
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
  data: {
    session_id: string;
    run_id?: string;
    agent_id?: string;
    project_id?: string;
    /** The hook that started an investigation (`investigation.*`). */
    hook_id?: string;
    status?: string;
    reason?: string;
    pending?: string[];
    /** Where an investigation's report is (`investigation.finished`): its S3 key and path, never its text. */
    report?: { key: string; path: string; project_id?: string; bytes?: number };
    pdf_report?: { key: string; path: string; project_id?: string; bytes?: number; pages?: number };
    summary_path?: string;
  };
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

/** The body subscribers receive: the event's type, when it was published, and its data. */
export function eventBody(event: ZeroEvent, at = new Date()): { type: string; timestamp: string; data: ZeroEvent['data'] } {
  return { type: event.type, timestamp: at.toISOString(), data: event.data };
}

/**
 * Writes one outbox record per subscription that asked for the event's type
 * (a subscriber already holding this message gets no second record), then
 * sends them all at once; each is retried on its own, and a record whose
 * process dies is sent by a sweep. Resolves once the records are written,
 * with `sent` resolving when this process is done sending. Must not throw:
 * failures are logged (with the subscription and the target's origin, never its URL).
 */
export async function publishEvent(deps: OutboxDeps, event: ZeroEvent): Promise<{ sent: Promise<void> }> {
  try {
    const wanted = (await subscriptionStore(deps.subscriptions).list()).filter((s) => s.events.includes(event.type));
    const body = JSON.stringify(eventBody(event));
    const records = await enqueue(deps, wanted.map((s) => s.id), event, body);
    return { sent: sendAll(deps, records) };
  } catch (error) {
    log.error('publishing an event failed', { type: event.type, session_id: event.data.session_id, error: errorText(error) });
    return { sent: Promise.resolve() };
  }
}

/**
 * Writes the records of a message to these subscribers, and (on AWS) asks
 * for a sweep once the first attempt's lease would have run out, in case
 * this process is frozen or ends before it finishes. Returns the records
 * written now.
 */
export async function enqueue(deps: OutboxDeps, subscriptionIds: string[], event: Pick<ZeroEvent, 'type' | 'key' | 'data'>, body: string): Promise<OutboxDelivery[]> {
  if (subscriptionIds.length === 0) return [];
  const { firstSweepAt, sweepLater } = await import('./outbox');
  const id = eventMessageId(event);
  const now = Date.now();
  const at = new Date(now).toISOString();
  const records = subscriptionIds.map(
    (subscription_id): OutboxDelivery => ({
      subscription_id,
      message_id: id,
      type: event.type,
      body,
      ...(subscription_id.startsWith('hook:') ? { session_id: event.data.session_id } : {}),
      status: 'pending',
      attempts: 0,
      next_at: at,
      created_at: at,
      updated_at: at,
      expires_at: Math.ceil(now / 1000) + 14 * 24 * 3600,
    }),
  );
  const written = await Promise.all(records.map((r) => deps.subscriptions.outbox.create(r)));
  const fresh = records.filter((_, i) => written[i]);
  if (fresh.length) await sweepLater(deps, firstSweepAt(deps, now), now);
  return fresh;
}

/** Sends records in this process, all at once. Must not throw. */
export async function sendAll(deps: OutboxDeps, records: OutboxDelivery[]): Promise<void> {
  if (records.length === 0) return;
  const { carryDelivery } = await import('./outbox');
  await Promise.all(records.map((record) => carryDelivery(deps, record)));
}

/** Creates or replaces a subscription after checking that its secret is set and its URL may be reached (400s naming the field). */
export async function putSubscription(settings: SubscriptionSettings, id: string, input: z.output<typeof subscriptionInputSchema>) {
  if (!settings.secret(input.secret_ref)) throw invalidField('secret_ref', `${input.secret_ref} is not set in the server's environment`);
  const { refusedUrl } = await import('../net/outbound');
  const refused = refusedUrl(new URL(input.url), settings.delivery.allow);
  if (refused) throw invalidField('url', refused);
  return subscriptionStore(settings).put(id, input);
}
