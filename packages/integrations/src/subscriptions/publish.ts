import { createHash } from 'node:crypto';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import type * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import type { SubscriptionEvent, SubscriptionFormat, subscriptionInputSchema } from '@zero/agent/wire';
import type { CallbackOptions, SecretResolver } from '../webhooks/callback';
import type { OutboxDeps } from './outbox';
import type { OutboxDelivery, OutboxStore } from './outbox-store';
import { SubscriptionStore, type Subscription } from './subscription-store';
import { MANAGED_WEBHOOK_EVENTS, managedWebhookBody } from './managed-webhook';
import { errorText, log } from '@zero/agent/log/log';

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

/** The body one subscriber receives, in its subscription's format (a Managed Agents webhook, or Zero's event). */
function subscriberBody(format: SubscriptionFormat, event: ZeroEvent, at = new Date()): string {
  const managed = format === 'managed_agents' ? managedWebhookBody(event, eventMessageId(event), at) : undefined;
  return JSON.stringify(managed ?? eventBody(event, at));
}

/** Each subscriber's body for the event, by subscription id, all stamped with one time. */
function bodiesFor(subscribers: readonly Pick<Subscription, 'id' | 'format'>[], event: ZeroEvent): (id: string) => string {
  const at = new Date();
  const bodies = new Map(subscribers.map((s) => [s.id, subscriberBody(s.format, event, at)]));
  return (id) => bodies.get(id)!;
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
    const subscribers = await subscribersOf(deps, event);
    const ids = subscribers.map((s) => s.id);
    const body = bodiesFor(subscribers, event);
    const records = await enqueue(deps, ids, event, body);
    // The others hold the message already: a record held as the run's ending was stored (holdEvent) is sent
    // now; one already on its way (a redelivered job) is left to its sender.
    const fresh = new Set(records.map((r) => r.subscription_id));
    const held = ids.filter((id) => !fresh.has(id)).map((id) => newRecord(id, event, body(id), Date.now()));
    return { sent: Promise.all([sendAll(deps, records), sendAll(deps, held, { held: true })]).then(() => undefined) };
  } catch (error) {
    log.error('publishing an event failed', { type: event.type, session_id: event.data.session_id, error: errorText(error) });
    return { sent: Promise.resolve() };
  }
}

/**
 * Writes the records of an event that reports a run's ending (or wait)
 * right before that ending is stored, held for the writer until an
 * attempt's lease has passed: the writer sends them once the ending is
 * stored (`publishEvent`); if it dies first, a sweep sends them, once the
 * session's log shows the ending (and drops them when it never does).
 * Must not throw.
 */
export async function holdEvent(deps: OutboxDeps, event: ZeroEvent, run: { session_id: string; run_id: string }): Promise<void> {
  try {
    const subscribers = await subscribersOf(deps, event);
    if (subscribers.length === 0) return;
    const { firstSweepAt, sweepLater } = await import('./outbox');
    const now = Date.now();
    const until = firstSweepAt(deps, now);
    const body = bodiesFor(subscribers, event);
    await Promise.all(subscribers.map(({ id }) => deps.subscriptions.outbox.hold({ ...newRecord(id, event, body(id), now), next_at: until.toISOString(), reports_run: run })));
    await sweepLater(deps, until, now);
  } catch (error) {
    log.error('holding an event failed', { type: event.type, session_id: event.data.session_id, error: errorText(error) });
  }
}

/** The subscriptions that asked for the event's type (a `managed_agents` one only for the events it can be sent). */
async function subscribersOf(deps: OutboxDeps, event: Pick<ZeroEvent, 'type'>): Promise<Subscription[]> {
  return (await subscriptionStore(deps.subscriptions).list()).filter((s) => s.events.includes(event.type) && (s.format !== 'managed_agents' || MANAGED_WEBHOOK_EVENTS.includes(event.type)));
}

/** A new record of a message to one subscriber, due at once. */
function newRecord(subscription_id: string, event: Pick<ZeroEvent, 'type' | 'key' | 'data'>, body: string, now: number): OutboxDelivery {
  const at = new Date(now).toISOString();
  return {
    subscription_id,
    message_id: eventMessageId(event),
    type: event.type,
    body,
    ...(subscription_id.startsWith('hook:') ? { session_id: event.data.session_id } : {}),
    status: 'pending',
    attempts: 0,
    next_at: at,
    created_at: at,
    updated_at: at,
    expires_at: Math.ceil(now / 1000) + 14 * 24 * 3600,
  };
}

/**
 * Writes the records of a message to these subscribers (`body`: the same for all, or each one's), and
 * (on AWS) asks for a sweep once the first attempt's lease would have run out, in case
 * this process is frozen or ends before it finishes. Returns the records
 * written now.
 */
export async function enqueue(deps: OutboxDeps, subscriptionIds: string[], event: Pick<ZeroEvent, 'type' | 'key' | 'data'>, body: string | ((id: string) => string)): Promise<OutboxDelivery[]> {
  if (subscriptionIds.length === 0) return [];
  const { firstSweepAt, sweepLater } = await import('./outbox');
  const now = Date.now();
  const records = subscriptionIds.map((id) => newRecord(id, event, typeof body === 'string' ? body : body(id), now));
  const written = await Promise.all(records.map((r) => deps.subscriptions.outbox.create(r)));
  const fresh = records.filter((_, i) => written[i]);
  if (fresh.length) await sweepLater(deps, firstSweepAt(deps, now), now);
  return fresh;
}

/** Sends records in this process, all at once (`held`: records this run's ending held, see `holdEvent`). Must not throw. */
export async function sendAll(deps: OutboxDeps, records: OutboxDelivery[], options: { held?: boolean } = {}): Promise<void> {
  if (records.length === 0) return;
  const { carryDelivery } = await import('./outbox');
  await Promise.all(records.map((record) => carryDelivery(deps, record, Date.now(), options)));
}

/**
 * Creates or replaces a subscription after checking that its secret is set, its URL may be reached and
 * (`managed_agents` format) each event has a Managed Agents webhook (400s naming the field).
 */
export async function putSubscription(settings: SubscriptionSettings, id: string, input: z.output<typeof subscriptionInputSchema>) {
  if (!settings.secret(input.secret_ref)) throw invalidField('secret_ref', `${input.secret_ref} is not set in the server's environment`);
  const unmapped = input.format === 'managed_agents' ? input.events.filter((e) => !MANAGED_WEBHOOK_EVENTS.includes(e)) : [];
  if (unmapped.length) throw invalidField('events', `${unmapped.join(', ')} has no Managed Agents webhook event; a managed_agents subscription takes ${MANAGED_WEBHOOK_EVENTS.join(', ')}`);
  const { refusedUrl } = await import('@zero/agent/net/outbound');
  const refused = refusedUrl(new URL(input.url), settings.delivery.allow);
  if (refused) throw invalidField('url', refused);
  return subscriptionStore(settings).put(id, input);
}
