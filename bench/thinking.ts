/**
 * The cost and latency of the same session with extended thinking on and off: `THINKING_BENCH_RUNS`
 * runs (default 20) of a two-step tool run (echo, then an answer) by the `thinker` fixture agent
 * (budget 2,048) and by the same agent with thinking off, against the fake model streaming each
 * word 2 ms apart; when thinking is on, each step first thinks about 120 words. Reports the mean
 * cost per run (list prices of the default model, thinking billed as output) and the time from the
 * request to `done` (p50, p90). Run with `npx tsx bench/thinking.ts`.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { loadavg } from 'node:os';
import { createS3Client } from '@zero/runtime/store/clients';
import { startHarness } from '../tests/support/harness';
import { chatStream } from '../tests/support/sse';
import { ms, percentile, table } from './support/stats';

const runs = Number(process.env.THINKING_BENCH_RUNS ?? 20);
const thought = 'Considering what the user asked and which tool answers it best before acting. '.repeat(10);
const h = await startHarness();
const s3 = createS3Client(h.stack.store);
await s3.send(
  new PutObjectCommand({
    Bucket: h.stack.store.bucket,
    Key: 'agents/unthinking.md',
    Body: '---\nname: unthinking\ndescription: The thinker without thinking.\ntools: echo, slow\nthinking: false\n---\n\nYou echo.\n',
  }),
);

async function session(agent: string) {
  const costs: number[] = [];
  const times: number[] = [];
  const output: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    h.fake.script(
      { thinking: thought, toolCalls: [{ name: 'echo', input: { text: `run ${i}` } }], deltaDelayMs: 2 },
      { thinking: thought, text: 'The echo answered; here is the result of the run, in a few words.', deltaDelayMs: 2 },
    );
    const started = performance.now();
    const { events } = await chatStream(h.url, { agent_id: agent, message: `Echo run ${i}.` });
    const done = events.at(-1) as { type: string; status?: string; usage?: { cost_usd: number; output_tokens: number } };
    if (done.status !== 'completed') throw new Error(`run ended ${JSON.stringify(done)}`);
    // The first two warm the server up.
    if (i >= 2) {
      times.push(performance.now() - started);
      costs.push(done.usage!.cost_usd);
      output.push(done.usage!.output_tokens);
    }
    h.fake.reset();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  times.sort((a, b) => a - b);
  return [agent === 'thinker' ? 'thinking on (2,048 budget)' : 'thinking off', `$${mean(costs).toFixed(5)}`, String(Math.round(mean(output))), ms(percentile(times, 50)), ms(percentile(times, 90))];
}

const rows = [await session('unthinking'), await session('thinker')];
console.log(table(`${runs} two-step runs per agent (load ${loadavg().map((l) => l.toFixed(1)).join(' ')})`, ['', 'cost per run', 'output tokens per run', 'request → done p50', 'p90'], rows));
s3.destroy();
await h.close();
