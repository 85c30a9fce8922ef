import { createHash, randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ZeroError, invalidRequest, unauthorized } from '@zero/agent/errors';
import { MAX_MESSAGE_CHARS, gitRefSchema, projectIdSchema } from '@zero/agent/wire';
import { webhookAuthorId } from '@zero/agent/loop/speaker';
import { startUnattended } from '@zero/runtime/sessions/start-unattended';
import type { HookConfig } from './hook-config';
import { genericSigningPayload, verifySha256 } from './signature';
import { renderTemplate, valueAt } from './template';
import type { DeliveryClaim, DeliveryMark, SessionSummary, WebhookStore } from './webhook-store';
import type { WebhookDeps } from './webhooks';
import { log } from '@zero/agent/log/log';

/** How long a delivery id (and a GitHub body's hash) is remembered: GitHub lets a delivery be redelivered by hand for days. */
const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;

/** A delivery as the HTTP edge hands it over: header lookup (lower-case names) and the raw body, unread. */
export interface IncomingDelivery {
  header(name: string): string | undefined;
  body: Uint8Array;
}

export type DeliveryOutcome =
  | { status: 'accepted'; session_id: string; run_id: string }
  | { status: 'ignored'; event: string }
  | { status: 'duplicate'; session_id: string; run_id: string };

const githubHeaders = z.object({
  'x-github-event': z.string().regex(/^[a-z0-9_]{1,64}$/, 'must be a GitHub event name'),
  'x-github-delivery': z.string().regex(/^[A-Za-z0-9-]{1,128}$/, 'must be a delivery GUID'),
});
const genericHeaders = z.object({
  'x-zero-timestamp': z.string().regex(/^\d{1,12}$/, 'must be seconds since the epoch'),
  // Neither may contain ":": it separates the fields of the signed string.
  'x-zero-event': z.string().regex(/^[a-z0-9_.-]{1,129}$/, 'must be an event name such as "deploy.failed"').optional(),
  'x-zero-delivery': z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be letters, digits, ".", "_" or "-"').optional(),
});
const payloadSchema = z.record(z.string(), z.unknown(), { error: 'the payload must be a JSON object' });

/**
 * Takes one webhook delivery: verifies its signature over the raw body
 * (nothing is read, parsed or stored before that), filters its event,
 * claims its delivery id (a conditional put: of two concurrent copies
 * exactly one wins), creates the session with the hook's owner and members,
 * stores the filled-in prompt in its inbox and sends the session to the run
 * queue. Returns without waiting for the run.
 */
export async function acceptDelivery(deps: WebhookDeps, hook: HookConfig, delivery: IncomingDelivery, now = Date.now()): Promise<DeliveryOutcome> {
  const secret = deps.webhooks.secret(hook.secret_ref);
  if (!secret) {
    // The operator's mistake, but the sender learns only that the request was refused.
    log.error('webhook secret is not set', { hook_id: hook.id, secret_ref: hook.secret_ref });
    throw unauthorized('the signature could not be verified');
  }

  let event: string;
  let deliveryId: string;
  let ttl = DELIVERY_TTL_SECONDS;
  if (hook.source === 'github') {
    if (!verifySha256(secret, delivery.body, delivery.header('x-hub-signature-256'))) {
      throw unauthorized('X-Hub-Signature-256 is missing or does not match the body');
    }
    const headers = parseHeaders(githubHeaders, delivery);
    event = headers['x-github-event'];
    deliveryId = headers['x-github-delivery'];
  } else {
    const timestamp = delivery.header('x-zero-timestamp');
    const signature = delivery.header('x-zero-signature');
    const signed = { timestamp: timestamp ?? '', delivery: delivery.header('x-zero-delivery'), event: delivery.header('x-zero-event') };
    if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !verifySha256(secret, genericSigningPayload(signed, delivery.body), signature)) {
      throw unauthorized('X-Zero-Signature is missing or does not match "v1:<X-Zero-Timestamp>:<X-Zero-Delivery>:<X-Zero-Event>:<body>"');
    }
    if (Math.abs(now / 1000 - Number(timestamp)) > hook.tolerance_seconds) {
      throw unauthorized(`X-Zero-Timestamp is more than ${hook.tolerance_seconds} s from the server's clock; sign each request when you send it`);
    }
    const headers = parseHeaders(genericHeaders, delivery);
    event = headers['x-zero-event'] ?? 'message';
    // Without a delivery id the signature identifies the request: a replay inside the window is a
    // duplicate (normalised as verified, so re-casing the hex does not make a replay look new).
    deliveryId = headers['x-zero-delivery'] ?? `sig-${signature!.trim().toLowerCase().slice('sha256='.length, 'sha256='.length + 40)}`;
    if (!headers['x-zero-delivery']) ttl = hook.tolerance_seconds * 2 + 60;
  }

  const payload = parsePayload(delivery);
  const action = hook.source === 'github' && typeof payload.action === 'string' ? payload.action : undefined;
  const name = action ? `${event}.${action}` : event;
  if (!accepts(hook.events, name)) return { status: 'ignored', event: name };

  const sessionId = randomUUID();
  const runId = `run_${randomUUID()}`;
  // GitHub signs only the body, so its delivery id proves nothing: the body's hash is claimed too
  // (first, since a replay under a fresh id differs from the original only there).
  const marks: DeliveryMark[] = [{ delivery: deliveryId }];
  if (hook.source === 'github') marks.unshift({ body_sha256: createHash('sha256').update(delivery.body).digest('hex') });
  const earlier = await claimAll(deps.webhooks.store, hook.id, marks, { session_id: sessionId, run_id: runId }, ttl);
  if (earlier) return { status: 'duplicate', ...earlier };

  try {
    await startInvestigation(deps, hook, { sessionId, runId, event: name, deliveryId, payload });
  } catch (error) {
    // Undo what can be undone, so the sender's retry starts the investigation rather than counting as a duplicate.
    await deps.sessions.deleteSession(sessionId).catch(() => undefined);
    await releaseAll(deps.webhooks.store, hook.id, marks);
    throw error;
  }
  return { status: 'accepted', session_id: sessionId, run_id: runId };
}

/** Claims each mark in turn; on one seen before, gives back those this request took and returns the earlier claim. */
async function claimAll(store: WebhookStore, hookId: string, marks: DeliveryMark[], claim: DeliveryClaim, ttl: number): Promise<DeliveryClaim | undefined> {
  for (const [i, mark] of marks.entries()) {
    const earlier = await store.claimDelivery(hookId, mark, claim, ttl);
    if (earlier) {
      await releaseAll(store, hookId, marks.slice(0, i));
      return earlier;
    }
  }
  return undefined;
}

async function releaseAll(store: WebhookStore, hookId: string, marks: DeliveryMark[]): Promise<void> {
  await Promise.all(marks.map((mark) => store.releaseDelivery(hookId, mark).catch(() => undefined)));
}

/** `*`, the exact name (`pull_request.opened`), or the event without its action (`pull_request`). */
function accepts(events: readonly string[], name: string): boolean {
  return events.some((e) => e === '*' || e === name || e === name.split('.')[0]);
}

function parseHeaders<S extends z.ZodType>(schema: S, delivery: IncomingDelivery): z.output<S> {
  const shape = (schema as unknown as z.ZodObject).shape;
  const values = Object.fromEntries(Object.keys(shape).map((name) => [name, delivery.header(name)]));
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

/** The JSON payload; GitHub's `application/x-www-form-urlencoded` content type carries it in a `payload` field. */
function parsePayload(delivery: IncomingDelivery): Record<string, unknown> {
  const text = Buffer.from(delivery.body).toString('utf8');
  const form = (delivery.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
  let value: unknown;
  try {
    value = JSON.parse(form ? (new URLSearchParams(text).get('payload') ?? '') : text);
  } catch {
    throw new ZeroError('invalid_json', 'the webhook body is not valid JSON', { field: 'body' });
  }
  const parsed = payloadSchema.safeParse(value);
  if (!parsed.success) throw new ZeroError('invalid_request', 'the payload must be a JSON object', { field: 'body' });
  return parsed.data;
}

interface Investigation {
  sessionId: string;
  runId: string;
  event: string;
  deliveryId: string;
  payload: Record<string, unknown>;
}

/** Starts the hook's session (owner, members), with its summary and any template warnings beside it, the message in its inbox, and the run job. */
async function startInvestigation(deps: WebhookDeps, hook: HookConfig, job: Investigation): Promise<void> {
  const warnings: string[] = [];
  const prompt = renderTemplate(hook.prompt, job.payload);
  for (const path of prompt.missing) warnings.push(`prompt: the payload has no "${path}"; the message shows [missing: ${path}] in its place`);
  for (const path of prompt.cut) warnings.push(`prompt: "${path}" was cut to its first characters`);
  let text = prompt.text;
  if (text.length > MAX_MESSAGE_CHARS) {
    text = `${text.slice(0, MAX_MESSAGE_CHARS - 100)}\n[cut: the message was ${text.length} characters]`;
    warnings.push(`prompt: the filled-in message was ${prompt.text.length} characters and was cut to ${MAX_MESSAGE_CHARS}`);
  }

  let projectId: string | undefined;
  if (hook.project) {
    const picked = renderTemplate(hook.project, job.payload);
    if (picked.missing.length) warnings.push(`project: the payload has no "${picked.missing.join('", "')}"; the session has no project`);
    else if (!projectIdSchema.safeParse(picked.text).success) warnings.push(`project: "${picked.text.slice(0, 200)}" is not an owner/repo id; the session has no project`);
    else projectId = picked.text;
  }

  const github = hook.hydrate || hook.report ? githubContext(hook, job.payload, projectId, warnings) : undefined;

  // One line (startUnattended makes it one): a title is filled from the payload too, and must not pass for more than a title.
  const title = hook.title ? renderTemplate(hook.title, job.payload).text : `${job.event}: ${text.trim().split('\n')[0] ?? ''}`;
  await startUnattended(deps, {
    sessionId: job.sessionId,
    runId: job.runId,
    title,
    agentId: hook.agent_id,
    projectId,
    owner: hook.owner,
    members: hook.members,
    // The hook's project belongs to the hook's owner and members, so the session's tools may use it.
    grantAs: hook.id,
    text,
    author: { id: webhookAuthorId(hook.id), name: hook.source === 'github' ? `GitHub (${hook.id})` : `Webhook (${hook.id})` },
    reason: 'webhook',
    alongside: (now) => [
      deps.webhooks.store.putSummary({
        v: 1,
        session_id: job.sessionId,
        run_id: job.runId,
        origin: { hook_id: hook.id, source: hook.source, event: job.event, delivery_id: job.deliveryId, received_at: now },
        status: 'accepted',
        ...(projectId ? { project_id: projectId } : {}),
        ...(github ? { github } : {}),
        warnings,
      }),
    ],
  });
  for (const warning of warnings) log.warn('webhook template', { hook_id: hook.id, session_id: job.sessionId, warning });
}

/**
 * What a hook that hydrates or reports needs of a GitHub event: the
 * repository, the pull request (or issue) number and the commit (a pull
 * request's head, a push's `after`). The worker hydrates before the run when
 * `hydrate` is `pending`; the report goes where `number` and `sha` say.
 */
function githubContext(hook: HookConfig, payload: Record<string, unknown>, projectId: string | undefined, warnings: string[]): SessionSummary['github'] {
  const repo = valueAt(payload, 'repository.full_name');
  if (typeof repo !== 'string' || !projectIdSchema.safeParse(repo).success) {
    warnings.push('github: the payload has no repository.full_name; nothing is hydrated or reported');
    return undefined;
  }
  const number = [valueAt(payload, 'pull_request.number'), valueAt(payload, 'issue.number'), valueAt(payload, 'number')].find((n) => Number.isSafeInteger(n)) as number | undefined;
  const sha = [valueAt(payload, 'pull_request.head.sha'), valueAt(payload, 'after'), valueAt(payload, 'check_suite.head_sha')].find((s) => typeof s === 'string' && /^[0-9a-f]{40}$/.test(s)) as string | undefined;
  const branch = valueAt(payload, 'repository.default_branch');
  const ref = sha ? undefined : typeof branch === 'string' && gitRefSchema.safeParse(branch).success ? branch : undefined;
  let hydrate: 'pending' | undefined;
  if (hook.hydrate) {
    if (!projectId) warnings.push('hydrate: the session has no project, so nothing is hydrated');
    else if (!sha && !ref) warnings.push('hydrate: the payload names no commit and no default branch; nothing is hydrated');
    else hydrate = 'pending';
  }
  if (hook.report && number === undefined && hook.report.github === 'comment') warnings.push('report: the event is about no pull request or issue; no comment is posted');
  return { repo, ...(number !== undefined ? { number } : {}), ...(sha ? { sha } : {}), ...(ref ? { ref } : {}), ...(hydrate ? { hydrate } : {}) };
}
