import Anthropic from '@anthropic-ai/sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { DEV_KEY, send, startHarness, type Harness } from './support/harness';
import { ZERO_BIN, cliEnv } from './support/cli';
import {
  environmentSchema,
  eventPageSchema,
  heartbeatSchema,
  leaseStateSchema,
  sessionEventSchema,
  workPageSchema,
  workSchema,
  workStatsSchema,
  type SessionEvent, valid } from './support/managed-agents-schemas';


/** Reads the session's stream until its turn ends (an idle that does not wait for anyone). */
async function untilTurnEnds(events: AsyncIterator<unknown>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for (;;) {
    const { value, done } = await events.next();
    if (done) throw new Error(`the stream ended first; got ${out.map((e) => e.type).join(', ')}`);
    const event = valid(sessionEventSchema, value);
    out.push(event);
    if (event.type === 'session.status_idle' && (event as { stop_reason?: { type?: string } }).stop_reason?.type !== 'requires_action') return out;
  }
}

/** Waits for a condition on disk or on the server, checking it again and again (never a fixed sleep to conclude). */
async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `zero worker` as a real second process, in its own process group (so a kill takes its shell too). */
function startWorker(h: Harness, environmentId: string, dir: string, leaseSeconds = 30): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [ZERO_BIN, 'worker', '--environment', environmentId, '--dir', dir, '--lease-seconds', String(leaseSeconds)], {
    env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Gone already.
  }
};

const toolResults = (h: Harness, request: number) =>
  (h.fake.requests[request]!.body.messages as { content: unknown }[])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type?: string }) => b.type === 'tool_result') as { tool_use_id: string; content: unknown; is_error?: boolean }[];

describe('a self-hosted environment, served by `zero worker` through the work queue', () => {
  let h: Harness;
  let client: Anthropic;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    // Zero's bash asks a person unless ZERO_COMMAND_MODE=full; the worker's bash is under the same policy, so the deployment allows it here.
    h = await startHarness({ permissions: { side_effects: 'allow', rules: { bash: 'allow' } } });
    client = new Anthropic({ apiKey: DEV_KEY, baseURL: h.url, maxRetries: 0 });
  });
  afterEach(() => {
    for (const worker of workers.splice(0)) killGroup(worker, 'SIGKILL');
    h.fake.reset();
  });
  afterAll(() => h.close());

  const newSession = async () => {
    const environment = valid(environmentSchema, await client.beta.environments.create({ name: 'laptop', config: { type: 'self_hosted' } }));
    expect(environment.config).toEqual({ type: 'self_hosted' });
    const agent = await client.beta.agents.create({ name: 'Builder', model: 'claude-sonnet-4-6', tools: [{ type: 'agent_toolset_20260401' }] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id });
    expect(session.environment_id).toBe(environment.id);
    return { environment, session };
  };

  it("the official SDK makes an environment and a session in it; `zero worker` in a second process runs the session's calls in its folder; the session goes idle with their results", async () => {
    const { environment, session } = await newSession();
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    workers.push(startWorker(h, environment.id, dir));
    h.fake.script(
      { toolCalls: [{ id: 'toolu_write_1', name: 'write', input: { file_path: 'hello.txt', content: 'hello from the model' } }] },
      { toolCalls: [{ id: 'toolu_bash_1', name: 'bash', input: { command: 'cat hello.txt && echo ran >> runs.txt' } }] },
      { text: 'Done.' },
    );
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Build it' }] }] });
    const events = await untilTurnEnds(stream);

    // The model was offered the toolset's own tools, and none of Zero's that they stand in for.
    const offered = (h.fake.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['bash', 'read', 'write', 'edit', 'glob', 'grep']));
    expect(offered).not.toEqual(expect.arrayContaining(['run_command']));
    for (const zeroTool of ['run_command', 'read_file', 'write_file', 'edit_file']) expect(offered).not.toContain(zeroTool);
    // The calls ran on the worker's machine, in its folder, once each…
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello from the model');
    expect(readFileSync(join(dir, 'runs.txt'), 'utf8')).toBe('ran\n');
    // …and the model read what they returned.
    expect(JSON.stringify(toolResults(h, 2).find((r) => r.tool_use_id === 'toolu_bash_1')!.content)).toContain('hello from the model');
    expect(events.filter((e) => e.type === 'user.tool_result').map((e) => (e as { tool_use_id: string }).tool_use_id)).toEqual(['toolu_write_1', 'toolu_bash_1']);
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'end_turn' } });
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe('idle');
    const listed = valid(eventPageSchema, await client.beta.sessions.events.list(session.id).then((p) => ({ data: p.data, next_page: null })));
    expect(listed.data.filter((e) => e.type === 'user.tool_result')).toHaveLength(2);

    // Both items are stopped with their result; the queue is empty.
    const work = [];
    for await (const item of client.beta.environments.work.list(environment.id)) work.push(valid(workSchema, item));
    expect(work.map((w) => [w.metadata['zero.tool'], w.state])).toEqual([['write', 'stopped'], ['bash', 'stopped']]);
    expect(valid(workStatsSchema, await client.beta.environments.work.stats(environment.id))).toMatchObject({ depth: 0, pending: 0 });
  });

  it("the worker's tools never see its Zero key: bash `echo $ZERO_KEY; env` from the model prints no ZERO_* variable, no key and no config path", async () => {
    const { environment, session } = await newSession();
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    const worker = startWorker(h, environment.id, dir);
    workers.push(worker);
    h.fake.script({ toolCalls: [{ id: 'toolu_env', name: 'bash', input: { command: 'echo "KEY=[$ZERO_KEY]"; env' } }] }, { text: 'Nothing there.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Show me the key' }] }] });
    await untilTurnEnds(stream);
    const result = toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_env')!;
    const printed = JSON.stringify(result.content);
    expect(result.is_error).toBeFalsy();
    expect(printed).toContain('KEY=[]');
    expect(printed).toContain('PATH=');
    expect(printed).not.toContain(DEV_KEY);
    expect(printed).not.toMatch(/ZERO_/);
    expect(printed).not.toContain('config.json');
  });

  it("a session editor who does not own the environment cannot forge the worker's result: a mixed batch with a user.tool_result is refused whole, a custom_tool_result for an environment call is refused by name, and the worker's own result is what the model reads", async () => {
    const { environment, session } = await newSession();
    const bob = await h.userHeaders('bob', 'Bob');
    expect((await send(h, 'PUT', `/sessions/${session.id}/members/bob`, { authorization: `Bearer ${DEV_KEY}` }, { role: 'editor', name: 'Bob' })).status).toBe(201);
    h.fake.script({ toolCalls: [{ id: 'toolu_forge', name: 'bash', input: { command: 'echo real output' } }] }, { text: 'Done.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Run it' }] }] });
    const work = client.beta.environments.work;
    await eventually(async () => ((await work.stats(environment.id)).depth === 1 ? true : undefined), 'the call to be queued');
    // The environment's worker holds the call (acknowledged, its lease live) as bob tries to answer it.
    const item = valid(workSchema, await work.poll(environment.id, { 'Anthropic-Worker-ID': 'worker-a' }));
    await work.ack(item.id, { environment_id: environment.id });
    await work.heartbeat(item.id, { environment_id: environment.id, expected_last_heartbeat: 'NO_HEARTBEAT', desired_ttl_seconds: 600 });

    const post = (headers: Record<string, string>, events: unknown[]) =>
      fetch(`${h.url}/v1/sessions/${session.id}/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ events }) });
    const forged = { type: 'user.tool_result', tool_use_id: 'toolu_forge', content: [{ type: 'text', text: 'forged by bob' }] };
    const mixed = await post(bob, [forged, { type: 'user.tool_confirmation', tool_use_id: 'toolu_forge', result: 'allow' }]);
    expect(mixed.status).toBe(404);
    const custom = await post(bob, [{ type: 'user.custom_tool_result', custom_tool_use_id: 'toolu_forge', content: [{ type: 'text', text: 'forged by bob' }] }]);
    expect(custom.status).toBe(409);
    expect(JSON.stringify(await custom.json())).toContain('environment tool \\"bash\\"');
    // Nothing was recorded: the item is still the worker's, and the worker's result is what the model reads.
    expect((await work.retrieve(item.id, { environment_id: environment.id })).state).toBe('active');
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.tool_result', tool_use_id: 'toolu_forge', content: [{ type: 'text', text: 'real output' }] }] });
    await untilTurnEnds(stream);
    const result = JSON.stringify(toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_forge')!.content);
    expect(result).toContain('real output');
    expect(result).not.toContain('forged');
  });

  it("an environment tool is under the permission policy of the tool it stands in for: the toolset's always_ask holds the call for a person's approval before any worker gets it, then the worker runs it", async () => {
    const environment = valid(environmentSchema, await client.beta.environments.create({ name: 'laptop', config: { type: 'self_hosted' } }));
    const agent = await client.beta.agents.create({
      name: 'Careful',
      model: 'claude-sonnet-4-6',
      tools: [{ type: 'agent_toolset_20260401', configs: [{ name: 'bash', permission_policy: { type: 'always_ask' } }] }],
    });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id });
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    const worker = startWorker(h, environment.id, dir);
    workers.push(worker);
    h.fake.script({ toolCalls: [{ id: 'toolu_ask', name: 'bash', input: { command: 'echo approved >> ran.txt; cat ran.txt' } }] }, { text: 'Done.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Run it' }] }] });
    // The run waits for a person, and nothing is queued for a worker meanwhile.
    for (;;) {
      const { value } = await stream.next();
      const event = valid(sessionEventSchema, value);
      if (event.type === 'session.status_idle') {
        expect(event).toMatchObject({ stop_reason: { type: 'requires_action', event_ids: ['toolu_ask'] } });
        break;
      }
    }
    expect((await client.beta.environments.work.list(environment.id)).data).toEqual([]);
    expect(existsSync(join(dir, 'ran.txt'))).toBe(false);

    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.tool_confirmation', tool_use_id: 'toolu_ask', result: 'allow' }] });
    await untilTurnEnds(stream);
    expect(readFileSync(join(dir, 'ran.txt'), 'utf8')).toBe('approved\n');
    expect(JSON.stringify(toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_ask')!.content)).toContain('approved');
    expect(worker.output()).toContain('bash (toolu_ask): ok');
    expect((await client.beta.environments.work.list(environment.id)).data.map((w) => w.state)).toEqual(['stopped']);
  });

  it("in a self-hosted session the server runs none of the tools the worker's stand in for: a call of Zero's run_command is refused, not run", async () => {
    const { session } = await newSession();
    h.fake.script({ toolCalls: [{ id: 'toolu_sneaky', name: 'run_command', input: { command: 'echo', args: ['on the server'] } }] }, { text: 'Refused.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Try the server' }] }] });
    await untilTurnEnds(stream);
    const result = toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_sneaky')!;
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain('is not granted');
    expect((await client.beta.environments.work.list((await client.beta.sessions.retrieve(session.id)).environment_id)).data).toEqual([]);
  });

  it('a worker killed mid-command: its call fails cleanly once its lease runs out, nothing runs twice, and a second worker serves what comes next', async () => {
    const { environment, session } = await newSession();
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    const first = startWorker(h, environment.id, dir, 2);
    workers.push(first);
    h.fake.script({ toolCalls: [{ id: 'toolu_slow', name: 'bash', input: { command: 'echo started >> count.txt && sleep 120 && echo finished >> count.txt' } }] }, { text: 'The worker died; I will not retry.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Run the slow thing' }] }] });
    await eventually(() => existsSync(join(dir, 'count.txt')) && readFileSync(join(dir, 'count.txt'), 'utf8') === 'started\n', 'the command to start on the first worker');
    killGroup(first, 'SIGKILL');
    await eventually(() => (first.exitCode !== null || first.signalCode !== null ? true : undefined), 'the first worker to die');

    const second = startWorker(h, environment.id, dir, 2);
    workers.push(second);
    const events = await untilTurnEnds(stream);
    const result = toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_slow')!;
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain('stopped heartbeating');
    expect(events.at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });
    const [item] = (await client.beta.environments.work.list(environment.id)).data;
    expect(valid(workSchema, item).state).toBe('stopped');

    // The second worker serves the session's next call; the first command ran once and never finished.
    h.fake.script({ toolCalls: [{ id: 'toolu_again', name: 'bash', input: { command: 'echo again >> count.txt' } }] }, { text: 'Ran again.' });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Once more' }] }] });
    await untilTurnEnds(stream);
    expect(readFileSync(join(dir, 'count.txt'), 'utf8')).toBe('started\nagain\n');
    expect(second.output()).toContain('bash (toolu_again): ok');
  });

  it('the queue as the SDK calls it: a poll nobody acknowledges is handed to another worker, one acknowledgement wins, a stale heartbeat is a 412, and a lost lease cannot post its result', async () => {
    const { environment, session } = await newSession();
    h.fake.script({ toolCalls: [{ id: 'toolu_read_1', name: 'read', input: { file_path: 'x.txt' } }] }, { text: 'The read failed.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Read x' }] }] });
    const work = client.beta.environments.work;
    const stats = valid(workStatsSchema, await eventually(async () => ((await work.stats(environment.id)).depth === 1 ? work.stats(environment.id) : undefined), 'the call to be queued'));
    expect(stats).toMatchObject({ depth: 1, pending: 0 });

    const polledByA = valid(workSchema, await work.poll(environment.id, { 'Anthropic-Worker-ID': 'worker-a' }));
    expect(polledByA).toMatchObject({ state: 'queued', data: { type: 'session', id: session.id }, metadata: { 'zero.tool': 'read', 'zero.tool_use_id': 'toolu_read_1', 'zero.input': '{"file_path":"x.txt"}' } });
    expect(await work.poll(environment.id, { 'Anthropic-Worker-ID': 'worker-b' })).toBeNull();
    expect(valid(workStatsSchema, await work.stats(environment.id))).toMatchObject({ depth: 0, pending: 1 });
    // Worker A never acknowledges: worker B reclaims it.
    const polledByB = valid(workSchema, await work.poll(environment.id, { reclaim_older_than_ms: 0, 'Anthropic-Worker-ID': 'worker-b' }));
    expect(polledByB.id).toBe(polledByA.id);
    expect(valid(workSchema, await work.ack(polledByB.id, { environment_id: environment.id })).state).toBe('starting');
    expect(await work.ack(polledByA.id, { environment_id: environment.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.ConflictError);

    const beat = valid(heartbeatSchema, await work.heartbeat(polledByB.id, { environment_id: environment.id, expected_last_heartbeat: 'NO_HEARTBEAT', desired_ttl_seconds: 2 }));
    expect(beat).toMatchObject({ lease_extended: true, state: 'active', ttl_seconds: 2 });
    const stale = await work.heartbeat(polledByB.id, { environment_id: environment.id, expected_last_heartbeat: 'NO_HEARTBEAT' }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(Anthropic.APIError);
    expect((stale as InstanceType<typeof Anthropic.APIError>).status).toBe(412);
    const lease = valid(leaseStateSchema, ((stale as InstanceType<typeof Anthropic.APIError>).error as { error: { details: { current_state: unknown } } }).error.details.current_state);
    expect(lease).toMatchObject({ last_heartbeat: beat.last_heartbeat, state: 'active' });

    // No more heartbeats: the lease runs out, the next stats request fails the call, and the run goes on.
    await eventually(async () => ((await work.retrieve(polledByB.id, { environment_id: environment.id })).state === 'stopped' ? true : (await work.stats(environment.id), undefined)), 'the lease to run out');
    await untilTurnEnds(stream);
    expect(JSON.stringify(toolResults(h, 1)[0]!.content)).toContain('stopped heartbeating');
    const late = await client.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.tool_result', tool_use_id: 'toolu_read_1', content: [{ type: 'text', text: 'too late' }] }] })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(Anthropic.ConflictError);
    expect(valid(heartbeatSchema, await work.heartbeat(polledByB.id, { environment_id: environment.id, expected_last_heartbeat: beat.last_heartbeat }))).toMatchObject({ lease_extended: false, state: 'stopped' });
    expect(valid(workPageSchema, { ...(await work.list(environment.id)), next_page: null }).data).toHaveLength(1);
  });

  it("an operator's tools as the SDK calls them: metadata set on an item reads back (null removes a key, the call's own keys cannot be rewritten), and a stop fails the call with an error result the model reads", async () => {
    const { environment, session } = await newSession();
    h.fake.script({ toolCalls: [{ id: 'toolu_read_2', name: 'read', input: { file_path: 'y.txt' } }] }, { text: 'It was stopped.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Read y' }] }] });
    const work = client.beta.environments.work;
    await eventually(async () => ((await work.stats(environment.id)).depth === 1 ? true : undefined), 'the call to be queued');
    const item = valid(workSchema, await work.poll(environment.id, { 'Anthropic-Worker-ID': 'worker-c' }));

    const tagged = valid(workSchema, await work.update(item.id, { environment_id: environment.id, metadata: { 'ops.note': 'slow disk', 'ops.owner': 'ann' } }));
    expect(tagged.metadata).toMatchObject({ 'ops.note': 'slow disk', 'ops.owner': 'ann', 'zero.tool': 'read' });
    await work.update(item.id, { environment_id: environment.id, metadata: { 'ops.owner': null } });
    const read = valid(workSchema, await work.retrieve(item.id, { environment_id: environment.id }));
    expect(read.metadata['ops.note']).toBe('slow disk');
    expect(Object.keys(read.metadata)).not.toContain('ops.owner');
    // The call an item carries is Zero's to say: a worker cannot rewrite it.
    const forged = await work.update(item.id, { environment_id: environment.id, metadata: { 'zero.tool': 'bash' } }).catch((e: unknown) => e);
    expect(forged).toBeInstanceOf(Anthropic.BadRequestError);
    expect((forged as Error).message).toContain('metadata.zero.tool');

    const stopped = valid(workSchema, await work.stop(item.id, { environment_id: environment.id, force: true }));
    expect(stopped.state).toBe('stopped');
    await untilTurnEnds(stream);
    expect(toolResults(h, 1)[0]!.is_error).toBe(true);
  });
});

describe('a self-hosted environment under a deployment whose ZERO_PERMISSIONS deny bash', () => {
  let h: Harness;
  let client: Anthropic;
  let worker: ChildProcess & { output: () => string };
  beforeAll(async () => {
    h = await startHarness({ permissions: { side_effects: 'allow', rules: { bash: 'deny' } } });
    client = new Anthropic({ apiKey: DEV_KEY, baseURL: h.url, maxRetries: 0 });
  });
  afterAll(async () => {
    if (worker) killGroup(worker, 'SIGKILL');
    await h.close();
  });

  it('a bash call is refused with an error result the model reads, and never reaches the worker; a call the policy allows does', async () => {
    const environment = valid(environmentSchema, await client.beta.environments.create({ name: 'laptop', config: { type: 'self_hosted' } }));
    const agent = await client.beta.agents.create({ name: 'Builder', model: 'claude-sonnet-4-6', tools: [{ type: 'agent_toolset_20260401' }] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id });
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    worker = startWorker(h, environment.id, dir);
    h.fake.script(
      { toolCalls: [{ id: 'toolu_denied', name: 'bash', input: { command: 'echo ran > denied.txt' } }] },
      { toolCalls: [{ id: 'toolu_write', name: 'write', input: { file_path: 'allowed.txt', content: 'written' } }] },
      { text: 'Done.' },
    );
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Run it' }] }] });
    await untilTurnEnds(stream);
    const denied = toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_denied')!;
    expect(denied.is_error).toBe(true);
    expect(JSON.stringify(denied.content)).toContain('ZERO_PERMISSIONS rule');
    // The write (allowed) was served by the worker, after the refused bash call: the worker saw one call, not two.
    expect(readFileSync(join(dir, 'allowed.txt'), 'utf8')).toBe('written');
    expect(existsSync(join(dir, 'denied.txt'))).toBe(false);
    expect(worker.output()).not.toContain('toolu_denied');
    expect((await client.beta.environments.work.list(environment.id)).data.map((w) => w.metadata['zero.tool'])).toEqual(['write']);
  });
});
