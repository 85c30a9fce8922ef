import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { until } from './support/until';
import { startSubscriber, type Delivery } from './support/subscriber';
import { DEV, send, startHarness, type Harness } from './support/harness';
import { sdkClient } from './support/sdk';
import { valid } from './support/managed-agents-schemas';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_C2FtZSBsZW5ndGggYnV0IG5vdCB0aGUgc2FtZQ==';
const ENV = 'env_zero_lambda';
const EVENTS = ['session.created', 'run.completed', 'run.failed', 'run.awaiting_approval'];

/** A session's webhook data (`BetaWebhookSession…EventData`): the session's id, the organization and workspace, the type. */
const sessionWebhookData = (type: string) => z.strictObject({ type: z.literal(type), id: z.string(), organization_id: z.string(), workspace_id: z.string() });
/** `BetaWebhookEvent`, for the session events a Zero session sends. */
const webhookEventSchema = z.strictObject({
  type: z.literal('event'),
  id: z.string(),
  created_at: z.iso.datetime(),
  data: z.discriminatedUnion('type', [
    sessionWebhookData('session.created'),
    sessionWebhookData('session.status_idled'),
    sessionWebhookData('session.requires_action'),
    sessionWebhookData('session.budget_reached'),
  ]),
});
type WebhookEvent = z.infer<typeof webhookEventSchema>;

const headersOf = (delivery: Delivery) => Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));

describe("signed events in the Managed Agents webhook shape, verified by the SDK's webhooks.unwrap", () => {
  let h: Harness;
  let client: Anthropic;
  let managed: Awaited<ReturnType<typeof startSubscriber>>;
  let zero: Awaited<ReturnType<typeof startSubscriber>>;
  /** Each delivery to the managed receiver, verified and parsed by the SDK, then checked against its types. */
  const unwrapped = () => managed.received.map((d) => valid(webhookEventSchema, client.beta.webhooks.unwrap(d.body, { headers: headersOf(d), key: SECRET })));
  const ofSession = (id: string) => unwrapped().filter((e) => e.data.id === id);

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_MANAGED = SECRET;
    managed = await startSubscriber('/managed');
    zero = await startSubscriber('/zero');
    // One step per run: a run whose model calls a tool stops at its limit.
    h = await startHarness({ outbound: { allow: ['127.0.0.1'] }, webhookCallback: { attempts: 3, retryBaseMs: 5, timeoutMs: 5000 }, limits: { maxSteps: 1 } });
    client = sdkClient(h);
    const put = await send(h, 'PUT', '/subscriptions/managed', DEV, { url: managed.url, events: EVENTS, secret_ref: 'ZERO_WEBHOOK_SECRET_MANAGED', format: 'managed_agents' });
    expect(put.status).toBe(201);
    expect(put.json.subscription).toMatchObject({ format: 'managed_agents' });
    const plain = await send(h, 'PUT', '/subscriptions/plain', DEV, { url: zero.url, events: EVENTS, secret_ref: 'ZERO_WEBHOOK_SECRET_MANAGED' });
    expect(plain.json.subscription).toMatchObject({ format: 'zero' });
  });
  afterAll(async () => {
    await h.close();
    await managed.close();
    await zero.close();
  });
  afterEach(() => h.fake.reset());

  const sessionSaying = async (message: string, tools?: Anthropic.Beta.Agents.AgentCreateParams['tools']) => {
    const agent = await client.beta.agents.create({ name: 'Notifier', model: 'claude-sonnet-4-6', ...(tools ? { tools } : {}) });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: message }] }] });
    return session.id;
  };

  it("a session's creation and its idle turn arrive as session.created and session.status_idled; the default subscription keeps Zero's events", async () => {
    h.fake.script({ text: 'The password is swordfish.' });
    const sessionId = await sessionSaying('What is the word? swordfish');
    const got = await until(() => (ofSession(sessionId).length >= 2 ? ofSession(sessionId) : undefined));
    expect(got.map((e) => e.data.type).sort()).toEqual(['session.created', 'session.status_idled']);
    for (const event of got) {
      expect(event.data).toEqual({ type: event.data.type, id: sessionId, organization_id: 'zero', workspace_id: 'default' });
    }
    const deliveries = managed.received.filter((d) => d.body.includes(sessionId));
    // The body's id is the message id (the webhook-id header), the same for every attempt; nothing said is in it.
    expect(deliveries.map((d) => (JSON.parse(d.body) as WebhookEvent).id)).toEqual(deliveries.map((d) => d.headers['webhook-id']));
    for (const d of deliveries) expect(d.body).not.toContain('swordfish');
    // A key that is not the subscription's secret does not verify.
    expect(() => client.beta.webhooks.unwrap(deliveries[0]!.body, { headers: headersOf(deliveries[0]!), key: OTHER_SECRET })).toThrow();

    const plain = await until(() => {
      const mine = zero.received.map((d) => JSON.parse(d.body) as { type: string; data: { session_id?: string } }).filter((e) => e.data.session_id === sessionId);
      return mine.length >= 2 ? mine : undefined;
    });
    expect(plain.map((e) => e.type).sort()).toEqual(['run.completed', 'session.created']);
  });

  it('a call that waits for a person is session.requires_action; a run stopped at its limit is session.budget_reached', async () => {
    h.fake.script({ toolCalls: [{ id: 'toolu_write_1', name: 'write_file', input: { path: 'notes.md', content: 'hi' } }] });
    const waiting = await sessionSaying('Write notes', [{ type: 'agent_toolset_20260401', default_config: { enabled: false }, configs: [{ name: 'write', enabled: true, permission_policy: { type: 'always_ask' } }] }]);
    const asked = await until(() => ofSession(waiting).find((e) => e.data.type === 'session.requires_action'));
    expect(asked.data.id).toBe(waiting);

    h.fake.script({ toolCalls: [{ id: 'toolu_read_1', name: 'read_file', input: { path: 'notes.md' } }] });
    const limited = await sessionSaying('Read notes', [{ type: 'agent_toolset_20260401', default_config: { enabled: false }, configs: [{ name: 'read', enabled: true, permission_policy: { type: 'always_allow' } }] }]);
    const stopped = await until(() => ofSession(limited).find((e) => e.data.type === 'session.budget_reached'));
    expect(stopped.data.id).toBe(limited);
    expect(ofSession(limited).map((e) => e.data.type)).not.toContain('session.status_idled');
  });

  it('refuses a managed_agents subscription to events the API has no webhook for, and an unknown format, naming the field', async () => {
    const investigation = await send(h, 'PUT', '/subscriptions/bad', DEV, { url: managed.url, events: ['run.completed', 'investigation.finished'], secret_ref: 'ZERO_WEBHOOK_SECRET_MANAGED', format: 'managed_agents' });
    expect(investigation.status).toBe(400);
    expect(JSON.stringify(investigation.json)).toMatch(/events.*investigation\.finished/);
    const unknown = await send(h, 'PUT', '/subscriptions/bad', DEV, { url: managed.url, events: ['run.completed'], secret_ref: 'ZERO_WEBHOOK_SECRET_MANAGED', format: 'cloudevents' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.json)).toContain('format');
    expect((await send(h, 'GET', '/subscriptions/bad', DEV)).status).toBe(404);
  });
});
