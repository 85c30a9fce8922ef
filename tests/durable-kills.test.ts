import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer } from './support/child';
import { DEV, childConfig, getJson, postJson, startHarness, type Harness } from './support/harness';

/**
 * What a SIGKILL of the server at a chosen moment must not lose: the server
 * runs in a child process that kills itself the moment a record of a given
 * kind is durable (its failpoint), the stores survive, and a fresh process
 * finishes what the dead one left.
 */
describe('killed at a chosen moment, nothing is lost', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1000 });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  type Child = Awaited<ReturnType<typeof startChildServer>>;
  const child = (failpoint?: { after: string; signal: 'SIGKILL' }, extra: Record<string, unknown> = {}) => startChildServer({ ...childConfig(h, 1000), ...extra }, { failpoint });
  const exited = (server: Child) =>
    new Promise<void>((resolve) => {
      if (server.process.exitCode !== null || server.process.signalCode !== null) return resolve();
      server.process.once('exit', () => resolve());
    });
  /** Asks `read` again (100 ms apart, up to `tries` times) until `ok` holds for what it answers; the last answer. */
  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, tries = 100): Promise<T> {
    let value = await read();
    for (let i = 0; i < tries && !ok(value); i++) {
      await new Promise((r) => setTimeout(r, 100));
      value = await read();
    }
    return value;
  }

  it("a /v1 custom tool's result recorded, then the server killed: reading the session through /v1 alone carries the run on to idle", async () => {
    const { json: agent } = await postJson(`${h.url}/v1/agents`, {
      name: 'Weather',
      model: 'claude-sonnet-4-6',
      tools: [
        { type: 'agent_toolset_20260401', default_config: { enabled: false } },
        { type: 'custom', name: 'get_weather', description: 'The weather in a city.', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      ],
    });
    const { json: session } = await postJson(`${h.url}/v1/sessions`, { agent: agent.id, environment_id: 'env_zero_lambda' });
    h.fake.script({ toolCalls: [{ id: 'toolu_kill_weather', name: 'get_weather', input: { city: 'Oslo' } }] }, { text: 'Sunny in Oslo.' });
    const events = () => getJson(`${h.url}/v1/sessions/${session.id}/events`).then((r) => r.json.data as { type: string; stop_reason?: { type: string } }[]);
    await postJson(`${h.url}/v1/sessions/${session.id}/events`, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Oslo?' }] }] });
    const asked = await until(events, (list) => list.at(-1)?.stop_reason?.type === 'requires_action');
    expect(asked.find((e) => e.type === 'agent.custom_tool_use')).toBeTruthy();

    // The process dies the moment the result is durable: before it is reported, before the run is sent on.
    const first = await child({ after: 'approval', signal: 'SIGKILL' });
    await postJson(`${first.url}/v1/sessions/${session.id}/events`, { events: [{ type: 'user.custom_tool_result', custom_tool_use_id: 'toolu_kill_weather', content: [{ type: 'text', text: 'sunny' }] }] }).catch(() => undefined);
    await exited(first);

    const second = await child();
    try {
      // Only /v1 reads: retrieving the session wakes the run, as /api/v2's read does.
      const retrieved = await until(() => getJson(`${second.url}/v1/sessions/${session.id}`).then((r) => r.json), (s) => s.status === 'idle');
      expect(retrieved.status).toBe('idle');
      const list = await until(() => getJson(`${second.url}/v1/sessions/${session.id}/events`).then((r) => r.json.data as { type: string; stop_reason?: { type: string } }[]), (l) => l.at(-1)?.stop_reason?.type === 'end_turn');
      expect(list.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'end_turn' } });
      expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('sunny');
    } finally {
      await second.kill();
    }
  }, 60_000);
});
