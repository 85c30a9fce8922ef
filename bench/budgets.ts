/**
 * The overhead of budgets per step: the same run (a model that calls a tool `BUDGET_BENCH_STEPS` times,
 * default 40, then answers) with budgets on and off (`budgets: false`), `BUDGET_BENCH_RUNS` runs each
 * (default 5), alternating. Reports the median milliseconds per step and the DynamoDB requests per step
 * (every request the runtime's client sends, counted at the client), and the difference.
 * Run with `npx tsx bench/budgets.ts`.
 */
import { startHarness } from '../tests/support/harness';
import { chatStream } from '../tests/support/sse';

const steps = Number(process.env.BUDGET_BENCH_STEPS ?? 40);
const runs = Number(process.env.BUDGET_BENCH_RUNS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(budgets: boolean) {
  const h = await startHarness({ limits: { maxSteps: steps + 5 }, ...(budgets ? { budgets: { userDailyMicros: 1_000_000_000 } } : { budgets: false }) });
  const db = h.server.runtime.sessions.db;
  let requests = 0;
  const send = db.send.bind(db);
  db.send = ((...args: Parameters<typeof send>) => (requests++, send(...args))) as typeof db.send;
  const perStep: number[] = [];
  const requestsPerStep: number[] = [];
  for (let i = 0; i <= runs; i++) {
    h.fake.reset();
    h.fake.script(...Array.from({ length: steps }, (_, n) => ({ toolCalls: [{ name: 'echo', input: { text: `step ${n}` } }], usage: { input_tokens: 100, output_tokens: 20 } })), { text: 'Done.' });
    const before = requests;
    const started = performance.now();
    await chatStream(h.url, { agent_id: 'tester', message: 'go' });
    // The first run warms the process up; it is not counted.
    if (i === 0) continue;
    perStep.push((performance.now() - started) / (steps + 1));
    requestsPerStep.push((requests - before) / (steps + 1));
  }
  await h.close();
  return { msPerStep: median(perStep), requestsPerStep: median(requestsPerStep) };
}

const off = await measure(false);
const on = await measure(true);
console.log(`${steps + 1} steps per run, ${runs} runs, medians`);
console.log(`budgets off: ${off.msPerStep.toFixed(2)} ms/step, ${off.requestsPerStep.toFixed(2)} DynamoDB requests/step`);
console.log(`budgets on:  ${on.msPerStep.toFixed(2)} ms/step, ${on.requestsPerStep.toFixed(2)} DynamoDB requests/step`);
console.log(`overhead:    ${(on.msPerStep - off.msPerStep).toFixed(2)} ms/step, ${(on.requestsPerStep - off.requestsPerStep).toFixed(2)} requests/step`);
