import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGrepTool } from '@zero/runtime/tools/grep';
import { startHarness, type Harness } from './support/harness';
import { chatUntil } from './support/sse';

const PROJECT = 'acme/hostile';
const BUDGET_MS = 1_000;

/** `bytes` of pseudo-random `a`/`b` on one line: a text on which `a[ab]{200}[^ab]` overflows re2js's DFA cache and crawls. */
function randomAb(bytes: number, seed: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out[i] = seed < 1073741824 ? 0x61 : 0x62;
  }
  return out;
}

/** Times GET /health `count` times, one after the other. */
async function healthLatencies(url: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/health`);
    await response.text();
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 50));
  }
  return latencies;
}

describe('a hostile grep', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ extraTools: [createGrepTool({ budgetMs: BUDGET_MS })] });
    await h.server.runtime.projects.putFiles(PROJECT, [
      { path: 'dist/a.js', body: Buffer.alloc(500 * 1024, 'A') },
      { path: 'data/0.txt', body: randomAb(1024 * 1024, 1) },
      { path: 'data/1.txt', body: randomAb(1024 * 1024, 2) },
    ]);
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('\\w{1000}\\s over 500 KB of "A" is refused at once as too complex, naming the pattern', async () => {
    h.fake.script({ toolCalls: [{ id: 'toolu_grep', name: 'grep', input: { pattern: '\\w{1000}\\s', path: 'dist' } }] }, { text: 'ok' });
    const { events, rest } = await chatUntil(h.url, { agent_id: 'investigator', project_id: PROJECT, message: 'Search.' }, (e) => e.type === 'tool_result');
    expect(events.at(-1)).toMatchObject({ type: 'tool_result', is_error: true, content: expect.stringMatching(/^pattern: too complex \(it compiles to 1003 instructions, at most 500/) });
    expect((await rest()).at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('a costly pattern inside the bounds leaves /health answering within 100 ms, and ends at its budget with an error and no thread left running', async () => {
    h.fake.script({ toolCalls: [{ id: 'toolu_grep', name: 'grep', input: { pattern: 'a[ab]{200}[^ab]', path: 'data' } }] }, { text: 'ok' });
    const { rest } = await chatUntil(h.url, { agent_id: 'investigator', project_id: PROJECT, message: 'Search.' }, (e) => e.type === 'tool_call');
    const called = Date.now();
    let answered = false;
    const remainder = rest().then((events) => ((answered = true), events));
    // Probe until the run is over: the scan alone would take several seconds per file.
    const latencies: number[] = [];
    while (!answered) latencies.push(...(await healthLatencies(h.url, 1)));
    const events = await remainder;
    const elapsed = Date.now() - called;
    expect(latencies.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...latencies), `GET /health took ${latencies.map((l) => l.toFixed(1)).join(', ')} ms`).toBeLessThan(100);

    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      is_error: true,
      content: '[grep stopped at its 1 s time budget while scanning data/0.txt, after searching 0 of 2 files; results are partial. Use a simpler pattern, or narrow path or glob.]',
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(elapsed).toBeLessThan(BUDGET_MS + 2_000);

    // The scan thread was terminated: the process (server and stores) is idle again.
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 1_000));
    const used = process.cpuUsage(before);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
  });
});
