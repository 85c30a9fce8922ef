import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planProgressOf } from '@zero/agent/plan/progress';
import { cliEnv, runCli } from './support/cli';
import { DEV_KEY, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';
import { resultSeenByModel } from './support/tool-calls';

const PLAN = { goal: 'Audit the lockfile', steps: ['Read package-lock.json', 'Rank the packages by risk', 'Write the report'], agent: 'tester' };

describe('plan progress', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('a run of a plan reports each step started, done or failed as plan_progress events, and the session keeps where it stands', async () => {
    h.fake.script(
      { toolCalls: [{ id: 'toolu_p1', name: 'plan_progress', input: { step: 1, status: 'started' } }] },
      {
        toolCalls: [
          { id: 'toolu_p2', name: 'plan_progress', input: { step: 1, status: 'done', note: '212 packages' } },
          { id: 'toolu_p3', name: 'plan_progress', input: { step: 2, status: 'failed', note: 'no advisory data' } },
          { id: 'toolu_p4', name: 'plan_progress', input: { step: 4, status: 'started' } },
        ],
      },
      { text: 'Step 2 failed: no advisory data.' },
    );
    const { events } = await chatStream(h.url, { plan: PLAN });
    const progress = events.filter((e) => e.type === 'plan_progress').map(({ type, step, steps, title, status, note }) => ({ type, step, steps, title, status, ...(note ? { note } : {}) }));
    expect(progress).toEqual([
      { type: 'plan_progress', step: 1, steps: 3, title: 'Read package-lock.json', status: 'started' },
      { type: 'plan_progress', step: 1, steps: 3, title: 'Read package-lock.json', status: 'done', note: '212 packages' },
      { type: 'plan_progress', step: 2, steps: 3, title: 'Rank the packages by risk', status: 'failed', note: 'no advisory data' },
    ]);
    expect(resultSeenByModel(h, 'toolu_p4')).toMatchObject({ is_error: true, content: 'step: the plan has 3 steps (1 to 3); there is no step 4.' });
    // The model was told how to report, and given the tool only for this run.
    const first = h.fake.requests.at(-3)!;
    expect(first.body.tools?.map((t) => t.name)).toContain('plan_progress');
    expect(JSON.stringify(first.body.messages[0])).toContain('PROGRESS: call plan_progress');

    const start = events.find((e) => e.type === 'start') as { session_id: string; run_id: string };
    const log = await h.server.runtime.sessions.readLog(start.session_id);
    expect(log.find((r) => r.kind === 'user_message')).toMatchObject({ plan_steps: PLAN.steps });
    expect(planProgressOf(log, start.run_id)).toEqual([
      { step: 1, title: 'Read package-lock.json', status: 'done', note: '212 packages' },
      { step: 2, title: 'Rank the packages by risk', status: 'failed', note: 'no advisory data' },
      { step: 3, title: 'Write the report', status: 'pending' },
    ]);
  });

  it('a message that is not a plan has no plan_progress tool, and /chat takes plan_steps only inside a plan', async () => {
    h.fake.script({ text: 'Hello.' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'hi' });
    expect(events.some((e) => e.type === 'plan_progress')).toBe(false);
    expect(h.fake.requests.at(-1)!.body.tools?.map((t) => t.name) ?? []).not.toContain('plan_progress');
    const refused = await fetch(`${h.url}/api/v2/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEV_KEY}` },
      body: JSON.stringify({ message: 'hi', plan_steps: ['x'] }),
    });
    expect(refused.status).toBe(400);
  });

  it('zero run --plan shows each step as it starts and ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-plan-progress-'));
    writeFileSync(join(dir, 'task.yaml'), 'goal: Audit\nsteps:\n  - Read the lockfile\n  - Rank by risk\n');
    h.fake.script(
      { toolCalls: [{ id: 'toolu_c1', name: 'plan_progress', input: { step: 1, status: 'done' } }] },
      { toolCalls: [{ id: 'toolu_c2', name: 'plan_progress', input: { step: 2, status: 'failed', note: 'no data' } }] },
      { text: 'Done.' },
    );
    const run = await runCli(['run', '--plan', join(dir, 'task.yaml'), '--agent', 'tester'], { env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }) });
    expect(run.code).toBe(0);
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output).toContain('plan step 1/2 done: Read the lockfile');
    expect(output).toContain('plan step 2/2 failed: Rank by risk — no data');
  });
});
