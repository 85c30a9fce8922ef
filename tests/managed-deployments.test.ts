import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { fireDueSchedules, fireSchedule, type FireOutcome } from '@zero/integrations/schedules';
import { DEV, send, startHarness, type Harness } from './support/harness';
import { sdkClientAs } from './support/sdk';
import { apiErrorSchema, eventPageSchema, sessionSchema, valid } from './support/managed-agents-schemas';

const ENV = 'env_zero_lambda';

// Schemas written from the SDK's declarations: resources/beta/deployments.d.ts and deployment-runs.d.ts.

/** `BetaManagedAgentsAgentReference`. */
const agentReferenceSchema = z.strictObject({ type: z.literal('agent'), id: z.string(), version: z.number().int() });
const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
/** `BetaManagedAgentsDeploymentInitialEvent`. */
const initialEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user.message'), content: z.array(z.looseObject({ type: z.enum(['text', 'image', 'document', 'redacted']) })) }),
  z.object({ type: z.literal('user.define_outcome'), description: z.string(), rubric: z.looseObject({ type: z.string() }), max_iterations: z.number().nullable().optional() }),
  z.object({ type: z.literal('system.message'), content: z.array(textBlockSchema) }),
]);
const pausedErrorTypes = [
  'environment_archived_error', 'agent_archived_error', 'environment_not_found_error', 'vault_not_found_error', 'file_not_found_error', 'session_resource_not_found_error',
  'workspace_archived_error', 'organization_disabled_error', 'memory_store_archived_error', 'skill_not_found_error', 'vault_archived_error', 'unknown_error',
  'self_hosted_resources_unsupported_error', 'mcp_egress_blocked_error',
] as const;
/** `BetaManagedAgentsDeploymentPausedReason`. */
const pausedReasonSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('manual') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.enum(pausedErrorTypes) }) }),
]);
/** `BetaManagedAgentsSessionResourceConfig`. */
const resourceConfigSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('github_repository'),
    url: z.string(),
    checkout: z.discriminatedUnion('type', [z.object({ type: z.literal('branch'), name: z.string() }), z.object({ type: z.literal('commit'), sha: z.string() })]).nullable().optional(),
    mount_path: z.string().nullable().optional(),
  }),
  z.object({ type: z.literal('file'), file_id: z.string(), mount_path: z.string().nullable().optional() }),
  z.object({ type: z.literal('memory_store'), memory_store_id: z.string(), access: z.enum(['read_write', 'read_only']).nullable().optional(), instructions: z.string().nullable().optional() }),
]);
/** `BetaManagedAgentsSchedule`. */
const scheduleSchema = z.object({
  type: z.literal('cron'),
  expression: z.string(),
  timezone: z.string(),
  last_run_at: z.string().nullable().optional(),
  upcoming_runs_at: z.array(z.iso.datetime({ offset: true })).max(5).optional(),
});
/** `BetaManagedAgentsDeployment`. */
const deploymentSchema = z
  .object({
    id: z.string(),
    type: z.literal('deployment'),
    agent: agentReferenceSchema,
    archived_at: z.string().nullable(),
    created_at: z.string(),
    description: z.string().nullable(),
    environment_id: z.string(),
    initial_events: z.array(initialEventSchema),
    metadata: z.record(z.string(), z.string()),
    name: z.string(),
    paused_reason: pausedReasonSchema.nullable(),
    resources: z.array(resourceConfigSchema),
    schedule: scheduleSchema.nullable(),
    status: z.enum(['active', 'paused']),
    updated_at: z.string(),
    vault_ids: z.array(z.string()),
    budget: z.looseObject({}).nullable().optional(),
  })
  // "Non-null exactly when `status` is `paused`."
  .refine((d) => (d.paused_reason !== null) === (d.status === 'paused'), 'paused_reason is set exactly when paused');
const deploymentPageSchema = z.object({ data: z.array(deploymentSchema), next_page: z.string().nullable() });

const runErrorTypes = [...pausedErrorTypes, 'session_rate_limited_error', 'session_creation_rejected_error'] as const;
/** `BetaManagedAgentsDeploymentRun`. */
const deploymentRunSchema = z
  .object({
    id: z.string(),
    type: z.literal('deployment_run'),
    agent: agentReferenceSchema,
    created_at: z.string(),
    deployment_id: z.string(),
    error: z.object({ type: z.enum(runErrorTypes), message: z.string() }).nullable(),
    session_id: z.string().nullable(),
    trigger_context: z.discriminatedUnion('type', [z.object({ type: z.literal('schedule'), scheduled_at: z.iso.datetime({ offset: true }) }), z.object({ type: z.literal('manual') })]),
  })
  // "Exactly one of `session_id` or `error` is non-null."
  .refine((r) => (r.session_id === null) !== (r.error === null), 'exactly one of session_id and error');
const deploymentRunPageSchema = z.object({ data: z.array(deploymentRunSchema), next_page: z.string().nullable() });

/** The refusal an SDK call ends in, checked against the API's error shape. */
async function refusal(call: Promise<unknown>) {
  const error = await call.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(Anthropic.APIError);
  const apiError = error as InstanceType<typeof Anthropic.APIError>;
  return { status: apiError.status, message: valid(apiErrorSchema, apiError.error).error.message };
}

describe("Deployments and deployment runs through the official SDK, on Zero's schedules", () => {
  let h: Harness;
  let alice: Anthropic;
  let bob: Anthropic;
  let agentId: string;
  const idle = () => (h.server.runtime.queue as InProcessQueue).idle();
  const message = (text: string) => [{ type: 'user.message' as const, content: [{ type: 'text' as const, text }] }];
  const weekdays = { type: 'cron' as const, expression: '0 9 * * 1-5', timezone: 'Europe/Lisbon' };
  const create = (extra: Partial<Anthropic.Beta.Deployments.DeploymentCreateParams> = {}) =>
    alice.beta.deployments.create({ name: 'Morning triage', agent: agentId, environment_id: ENV, initial_events: message('Triage the open issues.'), ...extra });

  beforeAll(async () => {
    h = await startHarness();
    alice = await sdkClientAs(h, 'alice');
    bob = await sdkClientAs(h, 'bob');
    agentId = (await alice.beta.agents.create({ name: 'Triager', model: 'claude-sonnet-4-6', system: 'You triage issues.' })).id;
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('creates a deployment with a cron in a time zone, retrieves, updates and lists it; the next five times are 9:00 in Lisbon on weekdays', async () => {
    const repository = { type: 'github_repository' as const, url: 'https://github.com/octo-org/hello', checkout: { type: 'branch' as const, name: 'main' } };
    const created = valid(deploymentSchema, await create({ schedule: weekdays, description: 'Every weekday', metadata: { team: 'support' }, resources: [repository] }));
    expect(created).toMatchObject({
      name: 'Morning triage',
      description: 'Every weekday',
      agent: { id: agentId, version: 1 },
      environment_id: ENV,
      status: 'active',
      paused_reason: null,
      archived_at: null,
      metadata: { team: 'support' },
      initial_events: message('Triage the open issues.'),
      schedule: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Lisbon', last_run_at: null },
      resources: [{ ...repository, mount_path: '/workspace/hello' }],
    });
    expect(created.id).toMatch(/^depl_/);
    const upcoming = created.schedule!.upcoming_runs_at!;
    expect(upcoming).toHaveLength(5);
    for (const at of upcoming) {
      expect(at).toMatch(/T0[89]:00:00\.000Z$/);
      expect([1, 2, 3, 4, 5]).toContain(new Date(at).getUTCDay());
    }

    expect(valid(deploymentSchema, await alice.beta.deployments.retrieve(created.id))).toEqual(created);

    // The agent moves on to version 2; the deployment stays pinned to 1 until it is named again.
    await alice.beta.agents.update(agentId, { version: 1, system: 'You triage issues, briefly.' });
    const updated = valid(deploymentSchema, await alice.beta.deployments.update(created.id, { name: 'Triage', metadata: { team: null, tier: 'one' }, description: null, schedule: { ...weekdays, expression: '30 8 * * *' } }));
    expect(updated).toMatchObject({ name: 'Triage', description: null, metadata: { tier: 'one' }, agent: { version: 1 }, schedule: { expression: '30 8 * * *' } });
    expect(valid(deploymentSchema, await alice.beta.deployments.update(created.id, { agent: agentId })).agent.version).toBe(2);
    const manual = valid(deploymentSchema, await alice.beta.deployments.update(created.id, { schedule: null }));
    expect(manual.schedule).toBeNull();

    const listed = valid(deploymentPageSchema, await alice.beta.deployments.list({ limit: 100 }));
    expect(listed.data.map((d) => d.id)).toContain(created.id);
    expect(valid(deploymentPageSchema, await alice.beta.deployments.list({ agent_id: 'agent_nobody' })).data).toEqual([]);
  });

  it('run starts a session now: the fake model answers in it, and deploymentRuns lists the run with its session', async () => {
    const vault = await alice.beta.vaults.create({ display_name: 'Tracker' });
    const deployment = valid(deploymentSchema, await create({ initial_events: message('Summarise the new issues.'), vault_ids: [vault.id] }));
    expect(deployment.vault_ids).toEqual([vault.id]);
    h.fake.script({ text: 'Three new issues, none urgent.' });
    const run = valid(deploymentRunSchema, await alice.beta.deployments.run(deployment.id));
    expect(run).toMatchObject({ deployment_id: deployment.id, agent: { id: agentId }, error: null, trigger_context: { type: 'manual' } });
    expect(run.id).toMatch(/^drun_/);
    await idle();

    // The session is the deployment owner's, a Managed Agents session of the pinned agent, and it ran.
    const session = valid(sessionSchema, await alice.beta.sessions.retrieve(run.session_id!));
    expect(session).toMatchObject({ id: run.session_id, status: 'idle', environment_id: ENV, agent: { id: agentId, version: deployment.agent.version }, title: 'Morning triage', vault_ids: [vault.id] });
    const events = valid(eventPageSchema, await alice.beta.sessions.events.list(run.session_id!, { limit: 100 }));
    expect(JSON.stringify(events.data.filter((e) => e.type === 'agent.message'))).toContain('Three new issues, none urgent.');
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('Summarise the new issues.');

    const runs = valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: deployment.id }));
    expect(runs.data).toEqual([run]);
    expect(valid(deploymentRunSchema, await alice.beta.deploymentRuns.retrieve(run.id))).toEqual(run);
    expect(valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ trigger_type: 'manual', limit: 100 })).data.map((r) => r.id)).toContain(run.id);
    expect(valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: deployment.id, has_error: true })).data).toEqual([]);
    expect(valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: 'depl_nonexistent' })).data).toEqual([]);
  });

  it('a paused deployment does not fire when due; unpaused, the schedule starts its session and the run shows its scheduled time', async () => {
    const deployment = valid(deploymentSchema, await create({ schedule: weekdays, initial_events: message('Post the stand-up notes.') }));
    const paused = valid(deploymentSchema, await alice.beta.deployments.pause(deployment.id));
    expect(paused).toMatchObject({ status: 'paused', paused_reason: { type: 'manual' } });
    // "Reflects what the schedule would do if unpaused."
    expect(paused.schedule!.upcoming_runs_at).toHaveLength(5);

    // Monday 2 March 2026, 9:00 in Lisbon (09:00 UTC, winter time): due, but paused.
    const window = { from: new Date('2026-03-02T08:59:00Z'), to: new Date('2026-03-02T09:01:00Z') };
    const fired: { id: string; at: string; outcome: FireOutcome }[] = [];
    const onFire = (id: string, at: Date, outcome: FireOutcome) => fired.push({ id, at: at.toISOString(), outcome });
    await fireDueSchedules(h.server.runtime, window.from, window.to, onFire);
    await idle();
    expect(fired.filter((f) => f.id === deployment.id.replace('_', '-'))).toEqual([]);
    expect(h.fake.requests).toHaveLength(0);
    expect(valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: deployment.id })).data).toEqual([]);

    const unpaused = valid(deploymentSchema, await alice.beta.deployments.unpause(deployment.id));
    expect(unpaused).toMatchObject({ status: 'active', paused_reason: null });
    h.fake.script({ text: 'Notes posted.' });
    await fireDueSchedules(h.server.runtime, window.from, window.to, onFire);
    await idle();
    expect(fired.filter((f) => f.id === deployment.id.replace('_', '-'))).toEqual([{ id: deployment.id.replace('_', '-'), at: '2026-03-02T09:00:00.000Z', outcome: expect.objectContaining({ status: 'started' }) }]);
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('Post the stand-up notes.');

    const [run] = valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: deployment.id, trigger_type: 'schedule' })).data;
    expect(run).toMatchObject({ error: null, trigger_context: { type: 'schedule', scheduled_at: '2026-03-02T09:00:00.000Z' } });
    expect(valid(sessionSchema, await alice.beta.sessions.retrieve(run!.session_id!))).toMatchObject({ status: 'idle', agent: { id: agentId } });
    expect(valid(deploymentSchema, await alice.beta.deployments.retrieve(deployment.id)).schedule!.last_run_at).toBe(run!.created_at);
  });

  it('three failed scheduled runs in a row pause the deployment with an error reason; unpause resumes it', async () => {
    const deployment = valid(deploymentSchema, await create({ schedule: weekdays }));
    const scheduleId = deployment.id.replace('_', '-');
    h.fake.respondWith(() => ({ status: 400 }));
    for (const day of ['03', '04', '05']) {
      expect((await fireSchedule(h.server.runtime, scheduleId, new Date(`2026-03-${day}T09:00:00Z`))).status).toBe('started');
      await idle();
    }
    const paused = valid(deploymentSchema, await alice.beta.deployments.retrieve(deployment.id));
    expect(paused).toMatchObject({ status: 'paused', paused_reason: { type: 'error', error: { type: 'unknown_error' } } });
    expect(valid(deploymentPageSchema, await alice.beta.deployments.list({ status: 'paused', limit: 100 })).data.map((d) => d.id)).toContain(deployment.id);
    // The runs started their sessions: it is the sessions' runs that failed.
    expect(valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: deployment.id, has_error: false })).data).toHaveLength(3);
    // A change that is not an unpause keeps the pause.
    expect(valid(deploymentSchema, await alice.beta.deployments.update(deployment.id, { name: 'Still paused' })).status).toBe('paused');
    expect(await fireSchedule(h.server.runtime, scheduleId, new Date('2026-03-06T09:00:00Z'))).toEqual({ status: 'skipped', reason: 'paused' });

    expect(valid(deploymentSchema, await alice.beta.deployments.unpause(deployment.id))).toMatchObject({ status: 'active', paused_reason: null });
    expect((await h.server.runtime.schedules.store.get(scheduleId))).toMatchObject({ paused: false });
    expect(await h.server.runtime.schedules.markers.failures(scheduleId)).toBe(0);
  });

  it('a run whose agent was archived since starts no session: the run carries the error', async () => {
    const agent = await alice.beta.agents.create({ name: 'Soon gone', model: 'claude-sonnet-4-6' });
    const deployment = valid(deploymentSchema, await create({ agent: { type: 'agent', id: agent.id, version: 1 } }));
    await alice.beta.agents.archive(agent.id);
    const run = valid(deploymentRunSchema, await alice.beta.deployments.run(deployment.id));
    expect(run).toMatchObject({ session_id: null, error: { type: 'agent_archived_error' }, trigger_context: { type: 'manual' } });
    expect(valid(deploymentRunPageSchema, await alice.beta.deploymentRuns.list({ deployment_id: deployment.id, has_error: true })).data).toEqual([run]);
    expect(h.fake.requests).toHaveLength(0);
  });

  it("an administrator sees a deployment's schedule among Zero's schedules but changes it only through the deployment", async () => {
    const deployment = valid(deploymentSchema, await create({ schedule: weekdays }));
    const scheduleId = deployment.id.replace('_', '-');
    const read = await send(h, 'GET', `/schedules/${scheduleId}`, DEV);
    expect(read.json.schedule).toMatchObject({ cron: '0 9 * * 1-5', timezone: 'Europe/Lisbon', owner: { user_id: 'alice' }, deployment_id: deployment.id });
    const replaced = await send(h, 'PUT', `/schedules/${scheduleId}`, { ...DEV, 'content-type': 'application/json' }, { cron: '* * * * *', timezone: 'UTC', agent_id: 'tester', prompt: 'Hijack', owner: { user_id: 'carol' } });
    expect(replaced.status).toBe(409);
    expect(replaced.json.error.message).toContain('/v1/deployments');
    expect((await send(h, 'GET', `/schedules/${scheduleId}`, DEV)).json.schedule).toMatchObject({ cron: '0 9 * * 1-5', owner: { user_id: 'alice' } });
  });

  it('archive takes the schedule down: listed only with include_archived, no longer changed or run', async () => {
    const deployment = valid(deploymentSchema, await create({ schedule: weekdays }));
    const archived = valid(deploymentSchema, await alice.beta.deployments.archive(deployment.id));
    expect(archived).toMatchObject({ status: 'active', paused_reason: null, schedule: { upcoming_runs_at: [] } });
    expect(archived.archived_at).not.toBeNull();
    expect(await h.server.runtime.schedules.store.get(deployment.id.replace('_', '-'))).toBeUndefined();
    expect(valid(deploymentSchema, await alice.beta.deployments.archive(deployment.id)).archived_at).toBe(archived.archived_at);

    expect(valid(deploymentPageSchema, await alice.beta.deployments.list({ limit: 100 })).data.map((d) => d.id)).not.toContain(deployment.id);
    expect(valid(deploymentPageSchema, await alice.beta.deployments.list({ include_archived: true, limit: 100 })).data.map((d) => d.id)).toContain(deployment.id);
    expect(await refusal(alice.beta.deployments.run(deployment.id))).toMatchObject({ status: 400, message: expect.stringMatching(/^deployment_id: .*archived/) });
    expect(await refusal(alice.beta.deployments.pause(deployment.id))).toMatchObject({ status: 400 });
  });

  it("another user's deployment and runs are 404 at every method, and absent from their lists", async () => {
    const deployment = valid(deploymentSchema, await create({ schedule: weekdays }));
    h.fake.script({ text: 'Done.' });
    const run = valid(deploymentRunSchema, await alice.beta.deployments.run(deployment.id));
    await idle();
    const calls: (() => Promise<unknown>)[] = [
      () => bob.beta.deployments.retrieve(deployment.id),
      () => bob.beta.deployments.update(deployment.id, { name: 'Mine now' }),
      () => bob.beta.deployments.pause(deployment.id),
      () => bob.beta.deployments.unpause(deployment.id),
      () => bob.beta.deployments.run(deployment.id),
      () => bob.beta.deployments.archive(deployment.id),
      () => bob.beta.deploymentRuns.retrieve(run.id),
    ];
    for (const call of calls) expect((await refusal(call())).status).toBe(404);
    expect(valid(deploymentPageSchema, await bob.beta.deployments.list({ include_archived: true })).data).toEqual([]);
    expect(valid(deploymentRunPageSchema, await bob.beta.deploymentRuns.list({ deployment_id: deployment.id })).data).toEqual([]);
    expect(valid(deploymentRunPageSchema, await bob.beta.deploymentRuns.list()).data).toEqual([]);
    // Nothing of bob's calls changed it.
    expect(valid(deploymentSchema, await alice.beta.deployments.retrieve(deployment.id))).toMatchObject({ name: 'Morning triage', status: 'active', archived_at: null });
  });

  it('what Zero cannot do is a 400 naming the field', async () => {
    const field = async (extra: Record<string, unknown>) => (await refusal(create(extra as Partial<Anthropic.Beta.Deployments.DeploymentCreateParams>))).message.split(':')[0];
    expect(await field({ budget: { type: 'usd', limit: '10' } })).toBe('budget');
    expect(await field({ initial_events: [...message('Hi'), { type: 'system.message', content: [{ type: 'text', text: 'Be terse.' }] }] })).toBe('initial_events.1.type');
    expect(await field({ initial_events: [...message('One'), ...message('Two')] })).toBe('initial_events');
    expect(await field({ initial_events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }] })).toBe('initial_events.0.content.0.type');
    expect(await field({ schedule: { ...weekdays, expression: '0 9 * *' } })).toBe('schedule.expression');
    expect(await field({ schedule: { ...weekdays, expression: '0 9 L * *' } })).toBe('schedule.expression');
    expect(await field({ schedule: { ...weekdays, timezone: 'Mars/Olympus_Mons' } })).toBe('schedule.timezone');
    expect(await field({ resources: [{ type: 'file', file_id: 'file_abc' }] })).toBe('resources.0.type');
    expect(await field({ vault_ids: ['vlt_nobodys'] })).toBe('vault_ids.0');
    expect((await refusal(create({ agent: 'agent_nobody' }))).status).toBe(404);
    expect((await refusal(create({ environment_id: 'env_nobodys' }))).status).toBe(404);
    expect((await refusal(alice.beta.deployments.list({ status: 'paused', include_archived: true }))).message).toMatch(/^status:/);
  });
});
