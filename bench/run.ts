import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { StoreConfig } from '@zero/core';
import { DEFAULT_SPECS, EXPERT_SPECS, createRunner } from './runners/catalog';
import type { Runner, RunnerEnv } from './runners/runner';
import { concurrency, type ConcurrencyResult } from './scenarios/concurrency';
import { sessionCost, type CostResult } from './scenarios/cost';
import { growth, type GrowthResult } from './scenarios/growth';
import { loopOverhead, type LoopOverheadResult } from './scenarios/loop-overhead';
import { relayLatency, type RelayResult } from './scenarios/relay';
import { forkChild } from './support/child';
import { FakeModel, type BenchContext } from './support/context';
import { ms, table } from './support/stats';
import { systemPromptBlocks, writeAgentDir } from './workload';

/**
 * `npm run bench`: every scenario of issues 2 and 8, for Zero and each peer,
 * against one fake Anthropic server on loopback (its own process), with Zero's
 * DynamoDB (dynalite, on disk) and S3 (s3rver) in another. Prints the tables
 * and the targets, and writes the figures to bench/results/.
 */
async function main() {
  // The children need no Node deprecation chatter (the AWS SDK warns about Node 20).
  process.env.NODE_NO_WARNINGS = '1';
  // Other work on the machine moves every timing; the load average is printed with the figures.
  const loadBefore = loadavg().map((l) => Math.round(l * 10) / 10);
  const root = join(import.meta.dirname);
  const fakeChild = await forkChild<{ url: string }>(join(root, 'processes', 'fake-model.ts'));
  const storesChild = await forkChild<{ store: StoreConfig }>(join(root, 'processes', 'stores.ts'));
  const agentsDir = await writeAgentDir();
  const env: RunnerEnv = { fakeUrl: fakeChild.ready.url, store: storesChild.ready.store, agentsDir, system: systemPromptBlocks() };
  const fake = new FakeModel(fakeChild);
  const runners: Runner[] = [];
  for (const spec of DEFAULT_SPECS) runners.push(await createRunner(spec, env));
  const experts: Runner[] = [];
  for (const spec of EXPERT_SPECS) experts.push(await createRunner(spec, env));
  const ctx: BenchContext = { fake, env, runners, storesCpuMs: async () => (await storesChild.call<{ cpuMs: number }>('stats')).cpuMs };
  const zero = runners[0]!;

  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    log('bench: loop overhead…');
    const loop = await loopOverhead(ctx, runners);
    log('bench: relay latency…');
    const relay = await relayLatency(ctx, runners);
    log('bench: cost of a session…');
    const cost: CostResult[] = [];
    for (const runner of [...runners, ...experts]) cost.push(await sessionCost(ctx, runner));
    log('bench: growth (200 turns)…');
    const grown = await growth(ctx, zero);
    log('bench: concurrency (200 sessions per runner, each in a fresh process)…');
    const concurrent: ConcurrencyResult[] = [];
    for (const spec of DEFAULT_SPECS) concurrent.push(await concurrency(ctx, spec));

    const machine = { load_average_before: loadBefore, load_average: loadavg().map((l) => Math.round(l * 10) / 10), cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}` };
    const targets = evaluateTargets(loop, relay, cost, grown);
    const report = [
      `Zero benchmarks — ${machine.cpus} cores (${machine.cpu_model}), ${machine.memory_gib} GiB, Node ${machine.node}, ${machine.platform}; load average (1/5/15 min) ${loadBefore.join(' / ')} before, ${machine.load_average.join(' / ')} after`,
      'Processes: the fake Anthropic server (answering instantly), dynalite (LevelDB on disk) + s3rver, and Zero\'s server each run apart from the',
      'bench process, which holds the peers and Zero\'s SSE client. Zero\'s CPU and memory are its server\'s; "client cpu" is reading its SSE.',
      printLoop(loop),
      printRelay(relay),
      printConcurrency(concurrent),
      printCost(cost),
      printGrowth(grown),
      table('Targets', ['target', 'figure', 'met'], targets.map((t) => [t.target, t.figure, t.met ? 'yes' : 'NO'])),
    ].join('\n');
    console.log(report);

    const dir = join(root, 'results');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(file, JSON.stringify({ machine, at: new Date().toISOString(), loop, relay, concurrency: concurrent, cost, growth: grown, targets }, null, 2));
    console.log(`\nResults: ${file}`);
  } finally {
    for (const runner of [...runners, ...experts]) await runner.close();
    await fakeChild.stop();
    await storesChild.stop();
    await rm(agentsDir, { recursive: true, force: true });
  }
}

function printLoop(rows: LoopOverheadResult[]) {
  return table(
    `1. Loop overhead — ${rows[0]?.steps_per_run}-step run, one cheap tool per step, ${rows[0]?.runs} runs (ms per step, outside the model)`,
    ['runner', 'gap p50', 'gap p99', 'wall/step', 'cpu/step', 'client cpu/step', 'persist/step', 'persist share', 'first event p50'],
    rows.map((r) => [
      r.runner,
      ms(r.step_gap_ms.p50),
      ms(r.step_gap_ms.p99),
      ms(r.wall_per_step_ms),
      ms(r.cpu_per_step_ms),
      r.client_cpu_per_step_ms === undefined ? '–' : ms(r.client_cpu_per_step_ms),
      r.persistence_per_step_ms === undefined ? '–' : ms(r.persistence_per_step_ms),
      r.persistence_share === undefined ? '–' : `${Math.round(r.persistence_share * 100)}%`,
      ms(r.first_event_ms.p50),
    ]),
  );
}

function printRelay(rows: RelayResult[]) {
  return table(
    '2. Relay latency — 500 text deltas 2 ms apart, fake server write → consumer read (ms; median of 3 runs by p99)',
    ['runner', 'p50', 'p99', 'max', 'p99 of each run'],
    rows.map((r) => [r.runner, ms(r.p50_ms), ms(r.p99_ms), ms(r.max_ms), r.p99_each_ms.map((v) => ms(v)).join(' / ')]),
  );
}

function printConcurrency(rows: ConcurrencyResult[]) {
  return table(
    '3. Concurrency — 200 sessions at once, each a tool step and a 20-delta streamed answer (Zero: memory of its server process)',
    ['runner', 'steps/s', 'first event p50', 'first event p99', 'runtime cpu s', 'store cpu s', 'rss base MB', 'rss peak MB', 'rss/session KB', 'heap/session KB', 'errors'],
    rows.map((r) => [
      r.runner,
      r.steps_per_s.toFixed(0),
      ms(r.first_event_ms.p50, 1),
      ms(r.first_event_ms.p99, 1),
      (r.runtime_cpu_ms / 1000).toFixed(2),
      r.store_cpu_ms === undefined ? '–' : (r.store_cpu_ms / 1000).toFixed(2),
      r.rss_base_mb.toFixed(0),
      r.rss_peak_mb.toFixed(0),
      r.rss_per_session_kb.toFixed(0),
      r.heap_per_session_kb.toFixed(0),
      r.errors,
    ]),
  );
}

function printCost(rows: CostResult[]) {
  return table(
    '4. Cost of a session — 10 turns, ~3,000-token system prompt, 8 tools, 2 tool calls per turn (list prices, Sonnet)',
    ['runner', 'requests', 'input', 'cache read', 'cache write', 'output', 'billed input eq.', 'USD', 'cache read share (turn ≥ 2)'],
    rows.map((r) => [
      r.runner,
      r.requests,
      r.input_tokens,
      r.cache_read_input_tokens,
      r.cache_creation_input_tokens,
      r.output_tokens,
      r.billed_input_equivalent,
      r.usd.toFixed(4),
      `${(r.cache_read_share_from_turn_2 * 100).toFixed(1)}%`,
    ]),
  );
}

function printGrowth(result: GrowthResult) {
  return table(
    `5. Growth — one ${result.runner} session of 200 turns (tool step + answer); times are medians of the 11 turns around`,
    ['turn', 'session step', 'turn ms', 'start ms', 'step gap ms', 'DDB writes', 'DDB bytes', 'bytes/step', 'request tokens'],
    result.turns.map((t) => [t.turn, t.step, ms(t.turn_ms), ms(t.start_ms), ms(t.step_gap_ms), t.dynamodb_writes, t.dynamodb_bytes, t.bytes_per_step, t.request_tokens]),
  );
}

interface Target {
  target: string;
  figure: string;
  met: boolean;
}

function evaluateTargets(loop: LoopOverheadResult[], relay: RelayResult[], cost: CostResult[], grown: GrowthResult): Target[] {
  const zeroLoop = loop.find((r) => r.runner === 'zero')!;
  const runnerLoop = loop.find((r) => r.runner.startsWith('anthropic-sdk'))!;
  const zeroRelay = relay.find((r) => r.runner === 'zero')!;
  const zeroCost = cost.find((r) => r.runner === 'zero')!;
  const defaults = cost.filter((r) => r.runner !== 'zero' && !r.runner.includes('(expert)'));
  const experts = cost.filter((r) => r.runner.includes('(expert)'));
  const first = grown.turns[0]!;
  const last = grown.turns.at(-1)!;
  const byStep = (step: number) => grown.turns.find((t) => t.step >= step)!;
  const cheapestDefault = Math.min(...defaults.map((r) => r.usd));
  const cheapestExpert = Math.min(...experts.map((r) => r.usd));
  return [
    { target: 'issue 2 (a) overhead per step p50 ≤ 10 ms (store writes incl.)', figure: `${ms(zeroLoop.step_gap_ms.p50)} ms (p99 ${ms(zeroLoop.step_gap_ms.p99)} ms)`, met: zeroLoop.step_gap_ms.p50 <= 10 },
    { target: 'issue 2 (b) request → start p50 ≤ 30 ms', figure: `${ms(zeroLoop.first_event_ms.p50)} ms new session, ${ms(last.start_ms)} ms at turn 200`, met: zeroLoop.first_event_ms.p50 <= 30 && last.start_ms <= 30 },
    { target: 'issue 2 (c) / issue 8 relay p99 ≤ 5 ms', figure: `${ms(zeroRelay.p99_ms)} ms`, met: zeroRelay.p99_ms <= 5 },
    {
      target: 'issue 2 DynamoDB bytes per step, step 200 ≤ step 2',
      figure: `${byStep(200).bytes_per_step} B at step ${byStep(200).step} vs ${byStep(2).bytes_per_step} B at step 2`,
      met: byStep(200).bytes_per_step <= byStep(2).bytes_per_step,
    },
    {
      target: 'loop overhead ≤ 1.5× Anthropic toolRunner (wall per step)',
      figure: `${ms(zeroLoop.wall_per_step_ms)} vs ${ms(runnerLoop.wall_per_step_ms)} ms = ${(zeroLoop.wall_per_step_ms / runnerLoop.wall_per_step_ms).toFixed(2)}×`,
      met: zeroLoop.wall_per_step_ms <= 1.5 * runnerLoop.wall_per_step_ms,
    },
    {
      target: 'loop overhead ≤ 1.5× Anthropic toolRunner (CPU per step)',
      figure: `${ms(zeroLoop.cpu_per_step_ms)} vs ${ms(runnerLoop.cpu_per_step_ms)} ms = ${(zeroLoop.cpu_per_step_ms / runnerLoop.cpu_per_step_ms).toFixed(2)}×`,
      met: zeroLoop.cpu_per_step_ms <= 1.5 * runnerLoop.cpu_per_step_ms,
    },
    {
      target: 'cost ≥ 40% below every peer default',
      figure: `$${zeroCost.usd.toFixed(4)} vs cheapest default $${cheapestDefault.toFixed(4)} (−${((1 - zeroCost.usd / cheapestDefault) * 100).toFixed(0)}%)`,
      met: zeroCost.usd <= 0.6 * cheapestDefault,
    },
    {
      target: 'cost no worse than expert configuration',
      figure: `$${zeroCost.usd.toFixed(4)} vs cheapest expert $${cheapestExpert.toFixed(4)}`,
      met: zeroCost.usd <= cheapestExpert * 1.0001,
    },
    { target: 'cache-read share ≥ 80% from turn 2', figure: `${(zeroCost.cache_read_share_from_turn_2 * 100).toFixed(1)}%`, met: zeroCost.cache_read_share_from_turn_2 >= 0.8 },
    {
      target: 'growth flat: DynamoDB bytes/turn at 200 ≤ turn 1',
      figure: `${last.dynamodb_bytes} B vs ${first.dynamodb_bytes} B (${last.dynamodb_writes} vs ${first.dynamodb_writes} writes)`,
      met: last.dynamodb_bytes <= first.dynamodb_bytes,
    },
    {
      target: 'growth flat: turn latency at 200 within 25% of turn 1',
      figure: `${ms(last.turn_ms)} vs ${ms(first.turn_ms)} ms (${(last.turn_ms / first.turn_ms).toFixed(2)}×)`,
      met: last.turn_ms <= 1.25 * first.turn_ms,
    },
  ];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
