import Anthropic from '@anthropic-ai/sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEV, DEV_KEY, getJson, postJson, send, startHarness, type Harness } from './support/harness';
import { ZERO_BIN, cliEnv } from './support/cli';
import { sessionEventSchema, type SessionEvent } from './support/managed-agents-schemas';

/** Reads the session's `/v1` stream until its turn ends (an idle that does not wait for anyone), then closes it. */
async function untilTurnEnds(events: AsyncIterator<unknown>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for (;;) {
    const { value, done } = await events.next();
    if (done) throw new Error(`the stream ended first; got ${out.map((e) => e.type).join(', ')}`);
    const event = sessionEventSchema.parse(value);
    out.push(event);
    if (event.type === 'session.status_idle' && (event as { stop_reason?: { type?: string } }).stop_reason?.type !== 'requires_action') {
      // Closed: no stream outlives its test.
      await events.return?.();
      return out;
    }
  }
}

/** Checks a condition again and again until it holds (never a fixed sleep to conclude). */
async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `zero worker` as a real second process, in its own process group. */
function startWorker(h: Harness, environmentId: string, dir: string): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [ZERO_BIN, 'worker', '--environment', environmentId, '--dir', dir, '--lease-seconds', '30'], {
    env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Gone already.
  }
};

type Block = { type?: string; tool_use_id?: string; content?: unknown; is_error?: boolean };
/** The tool results the model was sent in request `index`. */
const toolResults = (h: Harness, index: number) =>
  (h.fake.requests[index]!.body.messages as { content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : [])).filter((b) => b.type === 'tool_result');
const offered = (h: Harness, index: number) => (h.fake.requests[index]!.body.tools ?? []).map((t) => t.name);

/**
 * A session in a self-hosted environment sends its command and file tools to the environment's
 * work queue whichever door its message came through: `/v1` events, `/api/v2/chat`, and the runs it delegates.
 */
describe('a self-hosted session, through every door', () => {
  let h: Harness;
  let client: Anthropic;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    h = await startHarness({ permissions: { side_effects: 'allow', rules: { bash: 'allow', run_command: 'allow' } } });
    client = new Anthropic({ apiKey: DEV_KEY, baseURL: h.url, maxRetries: 0 });
  });
  afterEach(() => {
    for (const worker of workers.splice(0)) killGroup(worker);
    h.fake.reset();
  });
  afterAll(() => h.close());

  const newSession = async () => {
    const environment = await client.beta.environments.create({ name: 'laptop', config: { type: 'self_hosted' } });
    const agent = await client.beta.agents.create({ name: 'Builder', model: 'claude-sonnet-4-6', tools: [{ type: 'agent_toolset_20260401' }] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id });
    return { environment, session };
  };
  const chat = (sessionId: string, message: string, extra: Record<string, unknown> = {}) => postJson(`${h.url}/api/v2/chat`, { session_id: sessionId, message, ...extra });

  it("a message through /api/v2/chat: the model is offered the environment's tools, the bash call runs on `zero worker` in its folder, and the run goes on with its result", async () => {
    const { environment, session } = await newSession();
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    const worker = startWorker(h, environment.id, dir);
    workers.push(worker);
    h.fake.script({ toolCalls: [{ id: 'toolu_v2_bash', name: 'bash', input: { command: 'echo from-api-v2 >> ran.txt; cat ran.txt; hostname' } }] }, { text: 'Done.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    const { status, json } = await chat(session.id, 'Run it');
    expect(status).toBe(200);
    // The call went to the worker: this request's run waits on it (nothing ran on the server).
    expect(json).toMatchObject({ status: 'awaiting_approval' });
    await untilTurnEnds(stream);

    expect(offered(h, 0)).toEqual(expect.arrayContaining(['bash', 'read', 'write', 'edit', 'glob', 'grep']));
    for (const zeroTool of ['run_command', 'read_file', 'write_file', 'edit_file']) expect(offered(h, 0)).not.toContain(zeroTool);
    expect(readFileSync(join(dir, 'ran.txt'), 'utf8')).toBe('from-api-v2\n');
    const result = toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_v2_bash')!;
    expect(result.is_error).toBeFalsy();
    // The worker's machine answered, not the server's sandbox (whose host name is "sandbox").
    expect(JSON.stringify(result.content)).toContain('from-api-v2');
    expect(JSON.stringify(result.content)).not.toMatch(/\\nsandbox\\n/);
    expect(worker.output()).toContain('bash (toolu_v2_bash): ok');
    expect((await client.beta.environments.work.list(environment.id)).data.map((w) => [w.metadata['zero.tool'], w.state])).toEqual([['bash', 'stopped']]);
    // Zero's log has no command record: nothing ran in a sandbox of the server's.
    const detail = (await getJson(`${h.url}/api/v2/sessions/${session.id}`)).json;
    expect(detail.history.filter((r: { kind: string }) => r.kind === 'command')).toEqual([]);
  });

  it("a message through /api/v2/chat that switches to an agent with Zero's run_command and bash: neither is offered nor run on the server; the environment's bash is", async () => {
    const { environment, session } = await newSession();
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    workers.push(startWorker(h, environment.id, dir));
    h.fake.script(
      { toolCalls: [{ id: 'toolu_sneaky', name: 'run_command', input: { command: 'touch on-the-server.txt' } }] },
      { toolCalls: [{ id: 'toolu_env_bash', name: 'bash', input: { command: 'echo on-the-worker > where.txt' } }] },
      { text: 'Done.' },
    );
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    expect((await chat(session.id, 'Run it', { agent_id: 'commander' })).status).toBe(200);
    await untilTurnEnds(stream);

    expect(offered(h, 0)).toContain('bash');
    expect(offered(h, 0)).not.toContain('run_command');
    const sneaky = toolResults(h, 1).find((r) => r.tool_use_id === 'toolu_sneaky')!;
    expect(sneaky.is_error).toBe(true);
    expect(JSON.stringify(sneaky.content)).toContain('is not granted');
    expect(readFileSync(join(dir, 'where.txt'), 'utf8')).toBe('on-the-worker\n');
    expect(existsSync(join(dir, 'on-the-server.txt'))).toBe(false);
    expect((await client.beta.environments.work.list(environment.id)).data.map((w) => w.metadata['zero.tool'])).toEqual(['bash']);
  });

  it('with no worker polling, a /api/v2 message waits, visibly, on the queued call, which no member may answer; a cancel ends the run and withdraws the call, so no worker ever gets it', async () => {
    const { environment, session } = await newSession();
    h.fake.script({ toolCalls: [{ id: 'toolu_nobody', name: 'bash', input: { command: 'echo never > never.txt' } }] });
    expect((await chat(session.id, 'Run it')).json).toMatchObject({ status: 'awaiting_approval' });
    const work = client.beta.environments.work;
    await eventually(async () => ((await work.stats(environment.id)).depth === 1 ? true : undefined), 'the call to be queued');
    // What waits, and on what: the session's detail and the queue say it.
    const detail = (await getJson(`${h.url}/api/v2/sessions/${session.id}`)).json;
    expect(detail.awaiting_approval.pending).toEqual([
      expect.objectContaining({ kind: 'client_tool', tool_call_id: 'toolu_nobody', name: 'bash', policy: `self-hosted environment ${environment.id} (waits for its worker)` }),
    ]);
    expect((await work.list(environment.id)).data.map((w) => w.state)).toEqual(['queued']);
    // No member answers it in the worker's place, at /api/v2's door either.
    const forged = await send(h, 'POST', `/sessions/${session.id}/tool-results/toolu_nobody`, DEV, { content: 'forged' });
    expect(forged.status).toBe(409);
    expect(forged.json.error.message).toContain(`only the worker of self-hosted environment ${environment.id} answers it`);
    expect((await work.list(environment.id)).data.map((w) => w.state)).toEqual(['queued']);

    const cancelled = await send(h, 'POST', `/sessions/${session.id}/cancel`, DEV);
    expect(cancelled.status).toBe(202);
    expect(cancelled.json).toMatchObject({ cancelled: true, run_id: detail.awaiting_approval.run_id });
    expect((await work.list(environment.id)).data.map((w) => w.state)).toEqual(['stopped']);
    expect(await work.poll(environment.id, { 'Anthropic-Worker-ID': 'late-worker' })).toBeNull();
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe('idle');
    // The session takes the next message: the queue is clean.
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    workers.push(startWorker(h, environment.id, dir));
    h.fake.script({ toolCalls: [{ id: 'toolu_next', name: 'bash', input: { command: 'echo next > next.txt' } }] }, { text: 'Done.' });
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Again' }] }] });
    await untilTurnEnds(stream);
    expect(readFileSync(join(dir, 'next.txt'), 'utf8')).toBe('next\n');
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
  });

  it("a delegated run in a self-hosted session is refused the environment's tools, by name and why, and runs none of Zero's on the server", async () => {
    const { environment, session } = await newSession();
    const dir = mkdtempSync(join(tmpdir(), 'zero-worker-'));
    workers.push(startWorker(h, environment.id, dir));
    h.fake.script(
      { toolCalls: [{ id: 'toolu_deleg', name: 'delegate_agent', input: { agent_id: 'nikon', task: 'Run the tests.' } }] },
      // The delegate (nikon has run_command and Read): the environment's bash, and Zero's run_command.
      { toolCalls: [{ id: 'toolu_child_bash', name: 'bash', input: { command: 'echo child > child.txt' } }, { id: 'toolu_child_run', name: 'run_command', input: { command: 'ls' } }] },
      { text: 'I could not run anything.' },
      { text: 'Nikon could not run the tests here.' },
    );
    const stream = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    const { status, json } = await chat(session.id, 'Have nikon run the tests', { agent_id: 'zero' });
    expect(status).toBe(200);
    expect(json.status).toBe('completed');
    await untilTurnEnds(stream);

    expect(offered(h, 1)).toEqual(expect.arrayContaining(['bash', 'read']));
    expect(offered(h, 1)).not.toContain('run_command');
    expect(offered(h, 1)).not.toContain('read_file');
    const results = toolResults(h, 2);
    const bash = results.find((r) => r.tool_use_id === 'toolu_child_bash')!;
    expect(bash.is_error).toBe(true);
    expect(JSON.stringify(bash.content)).toContain(`self-hosted environment ${environment.id}`);
    expect(JSON.stringify(bash.content)).toContain('a delegated run cannot');
    const run = results.find((r) => r.tool_use_id === 'toolu_child_run')!;
    expect(run.is_error).toBe(true);
    expect(JSON.stringify(run.content)).toContain('is not granted');
    // Nothing was queued, nothing ran on the worker, nothing ran in a sandbox of the server's.
    expect((await client.beta.environments.work.list(environment.id)).data).toEqual([]);
    expect(existsSync(join(dir, 'child.txt'))).toBe(false);
    const detail = (await getJson(`${h.url}/api/v2/sessions/${session.id}`)).json;
    expect(detail.history.filter((r: { kind: string }) => r.kind === 'command')).toEqual([]);
  });
});
