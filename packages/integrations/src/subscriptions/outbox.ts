import type { RunQueue } from '@zero/runtime/sessions/queue';
import type { LeaseStore } from '@zero/runtime/store/lease-store';
import type { SessionStore } from '@zero/runtime/store/session-store';
import type { LogRecord } from '@zero/runtime/store/records';
import type { HookStore } from '../webhooks/hook-config';
import type { WebhookStore } from '../webhooks/webhook-store';
import { callbackTarget, type SecretResolver } from '../webhooks/callback';
import { signGeneric } from '../webhooks/signature';
import { errorText, log } from '@zero/agent/log/log';
import type { SubscriptionSettings } from './publish';
import { subscriptionStore } from './publish';
import { sendSignedOnce, type AttemptOutcome } from './deliver';
import type { AttemptRecord, OutboxDelivery } from './outbox-store';
import { outboxSweepMessage } from './sweep-message';

/**
 * What the outbox needs: subscriptions and their store, hooks (a hook's callback is its implicit subscription),
 * the queue for delayed sweeps, and the sessions' logs and leases, where a held record's ending is looked up.
 */
export interface OutboxDeps {
  subscriptions: SubscriptionSettings;
  /** The hooks whose callbacks ride this outbox (a part of webhooks' `Webhooks`, named here so the outbox does not import webhooks.ts, which imports it). */
  webhooks: { hooks: HookStore; store: WebhookStore; secret: SecretResolver };
  queue: RunQueue;
  sessions?: Pick<SessionStore, 'readLogTail' | 'readLog'>;
  leases?: Pick<LeaseStore, 'inspect'>;
}

/** A hook's callback is delivered as subscription `hook:<hook id>` (a subscription id cannot contain a colon). */
export const hookSubscriptionId = (hookId: string) => `hook:${hookId}`;
const hookIdOf = (subscriptionId: string) => (subscriptionId.startsWith('hook:') ? subscriptionId.slice('hook:'.length) : undefined);

const DAY_S = 24 * 3600;
/** How long a delivered record stays listed, and a failed one kept for inspection (the table's TTL removes them). */
export const DELIVERED_TTL_S = 3 * DAY_S;
export const FAILED_TTL_S = 14 * DAY_S;

/** Where a record goes now: its subscription's (or hook's) URL and secret, read at each attempt. */
type Target = { url: string; secret: string; hook: boolean } | { refused: string };

async function targetOf(deps: OutboxDeps, record: OutboxDelivery): Promise<Target> {
  const hookId = hookIdOf(record.subscription_id);
  if (hookId) {
    const hook = await deps.webhooks.hooks.get(hookId);
    if (!hook?.callback_url) return { refused: `the hook "${hookId}" has no callback URL any more` };
    const secret = deps.webhooks.secret(hook.secret_ref);
    if (!secret) return { refused: `the hook's secret (${hook.secret_ref}) is not set, so the callback cannot be signed` };
    return { url: hook.callback_url, secret, hook: true };
  }
  const subscription = await subscriptionStore(deps.subscriptions).get(record.subscription_id);
  if (!subscription) return { refused: `the subscription "${record.subscription_id}" was deleted` };
  const secret = deps.subscriptions.secret(subscription.secret_ref);
  if (!secret) return { refused: `${subscription.secret_ref} is not set, so the event cannot be signed` };
  return { url: subscription.url, secret, hook: false };
}

const maxAttempts = (deps: OutboxDeps) => deps.subscriptions.delivery.attempts ?? 4;
/** An attempt's lease: its time limit and a margin; a sender that has not recorded an outcome by then is taken for dead. */
const leaseMs = (deps: OutboxDeps) => (deps.subscriptions.delivery.timeoutMs ?? 10_000) + 5_000;
const backoffMs = (deps: OutboxDeps, attempts: number) => (deps.subscriptions.delivery.retryBaseMs ?? 1000) * 2 ** (attempts - 1);

/**
 * Makes one attempt at a record this sender has claimed, and records how it
 * went: delivered, failed for good (a refused address, a status that is not
 * worth retrying, the last attempt), or to be tried again after the backoff
 * (with a delayed sweep on the queue, so the retry does not depend on this
 * process living). A hook's callback also records the outcome in its
 * investigation's summary. Returns the record as it is now, or undefined
 * when another sender took over.
 */
async function attempt(deps: OutboxDeps, claimed: OutboxDelivery, now: number): Promise<OutboxDelivery | undefined> {
  const { outbox } = deps.subscriptions;
  const target = await targetOf(deps, claimed);
  const max = maxAttempts(deps);
  let result: OutboxDelivery | undefined;
  if ('refused' in target) {
    // Nothing went out: the claim's count is given back.
    result = await outbox.settle(claimed, 'failed', { attempts: claimed.attempts - 1, last_error: target.refused }, epoch(now) + FAILED_TTL_S, now);
  } else if (claimed.attempts > max) {
    // The last attempt's sender died before recording its outcome: no more attempts.
    result = await outbox.settle(claimed, 'failed', { attempts: max, last_status: claimed.last_status, last_error: claimed.last_error ?? 'no attempt left' }, epoch(now) + FAILED_TTL_S, now);
  } else {
    const outcome = await sendSignedOnce(target.url, target.secret, claimed.message_id, claimed.body, deps.subscriptions.delivery, target.hook ? legacyHeaders(target.secret, claimed) : {});
    const done = Date.now();
    const recorded: AttemptRecord = defined({ last_status: outcome.last_status, last_error: outcome.last_error });
    if (outcome.delivered) result = await outbox.settle(claimed, 'delivered', recorded, epoch(done) + DELIVERED_TTL_S, done);
    else if (!outcome.retry || claimed.attempts >= max) result = await outbox.settle(claimed, 'failed', recorded, epoch(done) + FAILED_TTL_S, done);
    else {
      const nextAt = new Date(done + backoffMs(deps, claimed.attempts));
      result = await outbox.retryLater(claimed, recorded, nextAt, done);
      if (result) await sweepLater(deps, nextAt, done);
    }
    if (!outcome.delivered) warn(claimed, outcome);
  }
  if (result && hookIdOf(result.subscription_id) && result.session_id) await recordInSummary(deps, result, 'url' in target ? target.url : undefined);
  return result;
}

/**
 * Carries a record from now: claims it, makes an attempt and, when the
 * attempt is to be retried and this process may wait (`waitForRetries`,
 * default true), waits for the backoff and goes on. Stops when the record
 * is settled, or another sender holds it. Returns the record as last seen.
 * Must not throw.
 */
export async function carryDelivery(deps: OutboxDeps, record: OutboxDelivery, now = Date.now(), options: { held?: boolean } = {}): Promise<OutboxDelivery> {
  let current = record;
  let held = !!options.held;
  try {
    // A record held for a run's ending that its writer never sent: sent only once the ending is stored.
    if (!held && record.reports_run && record.attempts === 0 && (await heldEnding(deps, record, Math.max(now, Date.now()))) !== 'stored') return record;
    for (;;) {
      // Claimed at the time it is claimed, not the sweep's start: a lease counted from a page read
      // long ago would already be running out, and a second sweeper could take the record mid-attempt.
      const claimed = await deps.subscriptions.outbox.claim(current, Math.max(now, Date.now()), leaseMs(deps), held);
      held = false;
      if (!claimed) return current;
      const next = await attempt(deps, claimed, now);
      if (!next) return claimed;
      current = next;
      if (current.status !== 'pending' || deps.subscriptions.delivery.waitForRetries === false) return current;
      const due = Date.parse(current.next_at);
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      // A timer may fire a little early: the retry's time has come all the same.
      now = Math.max(Date.now(), due);
    }
  } catch (error) {
    // The record stays as the table has it: a sweep takes it up when its time comes.
    log.error('an outbox delivery failed', { subscription_id: record.subscription_id, message_id: record.message_id, error: errorText(error) });
    return current;
  }
}

/**
 * Where the ending a held record reports stands: `stored` in the session's
 * log (send it); else `running` while a process holds the session (it may
 * still store it: the record waits another lease), or `never` (its writer
 * died before storing it: the record is dropped, and the run's real ending,
 * once it is resumed, writes its own).
 */
async function heldEnding(deps: OutboxDeps, record: OutboxDelivery, now: number): Promise<'stored' | 'running' | 'never'> {
  const { session_id, run_id } = record.reports_run!;
  if (!deps.sessions || !deps.leases) return 'stored';
  const kind = record.type === 'run.awaiting_approval' ? 'run_wait' : 'run_end';
  const stored = (log: readonly LogRecord[]) => log.some((r) => r.kind === kind && r.run_id === run_id);
  const tail = await deps.sessions.readLogTail(session_id, 200);
  if (stored(tail) || (tail.length === 200 && stored(await deps.sessions.readLog(session_id)))) return 'stored';
  if ((await deps.leases.inspect(session_id))?.active) {
    await deps.subscriptions.outbox.postpone(record, new Date(now + leaseMs(deps)));
    return 'running';
  }
  await deps.subscriptions.outbox.discard(record);
  return 'never';
}

/**
 * Sends the records whose process died: every pending record due by `now`
 * (a retry whose time has come, an attempt whose sender's lease ran out), one
 * attempt each; a further retry waits for a later sweep. Called by the local
 * server's timer and, on AWS, by the worker for each `outbox_sweep` message.
 * Two sweeps at once send each record once (the claim). Must not throw.
 */
export async function sweepOutbox(deps: OutboxDeps, now = new Date(), options: { limit?: number } = {}): Promise<{ due: number }> {
  const limit = options.limit ?? 100;
  const once = { ...deps, subscriptions: { ...deps.subscriptions, delivery: { ...deps.subscriptions.delivery, waitForRetries: false } } };
  let count = 0;
  try {
    // A page at a time: an attempted record leaves the due range (its next time is later), so the next page holds others.
    for (let page = 0; page < 10; page++) {
      const due = await deps.subscriptions.outbox.due(now, limit);
      count += due.length;
      await Promise.all(due.map((record) => carryDelivery(once, record, now.getTime())));
      if (due.length < limit) break;
    }
    // Whatever is still pending (leased by a sender that may be frozen, or waiting to be retried) gets a
    // sweep of its own at its time, so no record waits on an unrelated delivery's sweep.
    const next = await deps.subscriptions.outbox.nextDue();
    if (next) await sweepLater(deps, next);
  } catch (error) {
    log.error('sweeping the outbox failed', { error: errorText(error) });
  }
  return { due: count };
}

/** Asks the queue (SQS on AWS) for a sweep just after `at`; the local queue has no delays, the local timer sweeps instead. */
export async function sweepLater(deps: Pick<OutboxDeps, 'queue'>, at: Date, now = Date.now()): Promise<void> {
  if (!deps.queue.sendLater) return;
  try {
    await deps.queue.sendLater(outboxSweepMessage(at), Math.min(900, Math.max(1, Math.ceil((at.getTime() - now) / 1000) + 1)));
  } catch (error) {
    log.warn('asking for a delayed outbox sweep failed', { error: errorText(error) });
  }
}

/** An attempt's lease, for the delayed sweep sent when a record is written (its first sender may be frozen mid-attempt). */
export const firstSweepAt = (deps: OutboxDeps, now: number) => new Date(now + leaseMs(deps));

/**
 * The headers a hook's callback carried before it was an event: `X-Zero-Event`,
 * `X-Zero-Delivery` (the message id) and `X-Zero-Signature` over
 * `v1:<timestamp>:<delivery>:<event>:<body>`, so receivers written for them keep verifying.
 */
function legacyHeaders(secret: string, record: OutboxDelivery): Record<string, string> {
  return {
    'user-agent': 'Zero-Webhooks/1',
    'x-zero-event': record.type,
    'x-zero-delivery': record.message_id,
    ...signGeneric(secret, record.body, { delivery: record.message_id, event: record.type }),
  };
}

/** How a hook's callback went, in its investigation's summary (as the callback was recorded before it went through the outbox). */
async function recordInSummary(deps: OutboxDeps, record: OutboxDelivery, url: string | undefined): Promise<void> {
  const hook = url ? undefined : await deps.webhooks.hooks.get(hookIdOf(record.subscription_id)!);
  const where = url ?? hook?.callback_url;
  await deps.webhooks.store.updateSummary(record.session_id!, {
    callback: defined({
      target: where ? callbackTarget(where) : 'an unknown URL',
      status: record.status,
      attempts: record.attempts,
      last_status: record.last_status,
      last_error: record.last_error,
      at: record.updated_at,
    }),
  });
}

function warn(record: OutboxDelivery, outcome: AttemptOutcome) {
  log.warn('event delivery failed', { subscription_id: record.subscription_id, type: record.type, message_id: record.message_id, attempt: record.attempts, retry: outcome.retry, last_status: outcome.last_status, last_error: outcome.last_error });
}

const epoch = (ms: number) => Math.ceil(ms / 1000);

/** The object without its undefined fields (DynamoDB refuses undefined values). */
function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The local stand-in for the worker's delayed sweeps: sweeps the outbox at
 * once (deliveries a stopped process left) and then every `everyMs`, one
 * sweep at a time. Returns how to stop it.
 */
export function startOutboxSweeps(deps: OutboxDeps, everyMs = 15_000): { stop(): void } {
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    sweeping ??= sweepOutbox(deps).finally(() => (sweeping = undefined));
  };
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
