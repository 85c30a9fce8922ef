import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { StoreConfig } from '@zero/runtime/store/clients';
import { DEFAULT_SPECS, EXPERT_SPECS, createRunner } from './runners/catalog';
import type { Runner, RunnerEnv } from './runners/runner';
import { cliLatency, printCliLatency } from './cli';
import { coldStart, type ColdStartResult } from './scenarios/cold-start';
import { concurrency, type ConcurrencyResult } from './scenarios/concurrency';
import { MODEL_TIME, TURNS, sessionCost, type CostResult } from './scenarios/cost';
import { GROWTH_TURNS, growth, type GrowthResult } from './scenarios/growth';
import { GROWTH_SESSIONS, sessionsGrowth, type SessionsGrowthResult } from './scenarios/growth-sessions';
import { LOOP_RUNS, LOOP_STEPS, loopOverhead, type LoopOverheadResult } from './scenarios/loop-overhead';
import { relayLatency, type RelayResult } from './scenarios/relay';
import { requestsPerStep, type RequestsResult } from './scenarios/requests';
import { forkChild } from './support/child';
import { CLOUD_LATENCY } from './support/cloud-latency';
import { FakeModel, type BenchContext } from './support/context';
import type { RequestCount } from './support/dynamo-requests';
import { summariseProfile, type ProfileSummary } from './support/profile';
import { ms, table } from './support/stats';
import { evaluateTargets, issue13Figures } from './support/targets';
import { systemPromptBlocks, writeAgentDir } from './workload';
import { mcpOverhead, printMcpOverhead, type McpOverheadResult } from './mcp';

/**
 * `npm run bench`: every scenario of issues 2, 8 and 13, for Zero and each
 * peer, against one fake Anthropic server on loopback (its own process), with
 * Zero's DynamoDB (dynalite, on disk, every request counted) and S3 (s3rver)
 * in another. Prints the tables and the targets, and writes the figures to
 * bench/results/. `--quick` runs only what issue 13's six figures need.
 */
const USAGE = `npm run bench [-- --quick] [-- --profile] [-- --requests] [-- --loop] [-- --cost] [-- --growth] [-- --cloud]

  --quick    only issue 13's six figures: Zero and the Anthropic tool runner, fewer loop runs (1–1.5 minutes)
  --requests only Zero's DynamoDB requests per step (a few seconds): the counts do not move with the machine's load
  --cost     only Zero's 10-turn session: the model's cost and the infrastructure's at AWS list prices
  --growth   only growth: turn 1 vs 300 of one session, and a new session with 1 vs 10,000 sessions in the table
             (ZERO_BENCH_SESSIONS); time, DynamoDB requests and bytes read per step
  --loop     only the loop overhead of Zero and the tool runner (quick runs; with --cloud, the cloud target)
  --cloud    every DynamoDB and S3 response held back by an AWS in-region latency (DynamoDB median 4 ms, S3 30 ms;
             bench/README.md): Zero's wall per step against the tool runner's, whose store calls are none
  --profile  CPU-profile Zero's server in the loop-overhead runs (extra runs) and during the 200 concurrent sessions;
             writes bench/results/profile-*.cpuprofile (open in Chrome DevTools or speedscope) and prints the top consumers`;

async function main() {
  const { values: options } = parseArgs({ options: { quick: { type: 'boolean' }, requests: { type: 'boolean' }, loop: { type: 'boolean' }, cost: { type: 'boolean' }, cloud: { type: 'boolean' }, profile: { type: 'boolean' }, growth: { type: 'boolean' }, help: { type: 'boolean' } } });
  if (options.help) return console.log(USAGE);
  const quick = options.quick ?? false;
  // The children need no Node deprecation chatter (the AWS SDK warns about Node 20).
  process.env.NODE_NO_WARNINGS = '1';
  // Other work on the machine moves every timing; the load average is printed with the figures.
  const loadBefore = loadavg().map((l) => Math.round(l * 10) / 10);
  const started = performance.now();
  const root = join(import.meta.dirname);
  const dir = join(root, 'results');
  await mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const fakeChild = await forkChild<{ url: string }>(join(root, 'processes', 'fake-model.ts'));
  const storesChild = await forkChild<{ store: StoreConfig }>(join(root, 'processes', 'stores.ts'), [], options.cloud ? { ZERO_BENCH_CLOUD: '1' } : {});
  const agentsDir = await writeAgentDir();
  const env: RunnerEnv = { fakeUrl: fakeChild.ready.url, store: storesChild.ready.store, agentsDir, system: systemPromptBlocks() };
  const fake = new FakeModel(fakeChild);
  // Quick: Zero and the tool runner, the two the targets compare.
  const specs = options.requests || options.cost || options.growth ? DEFAULT_SPECS.filter((s) => s.kind === 'zero') : quick || options.loop ? DEFAULT_SPECS.filter((s) => s.kind === 'zero' || s.kind === 'anthropic') : DEFAULT_SPECS;
  const runners: Runner[] = [];
  for (const spec of specs) runners.push(await createRunner(spec, env));
  const experts: Runner[] = [];
  if (!quick && !options.requests && !options.loop && !options.cost && !options.growth) for (const spec of EXPERT_SPECS) experts.push(await createRunner(spec, env));
  const ctx: BenchContext = {
    fake,
    env,
    runners,
    storesCpuMs: async () => (await storesChild.call<{ cpuMs: number }>('stats')).cpuMs,
    storeRequests: () => storesChild.call<RequestCount[]>('requests'),
    resetStoreRequests: () => storesChild.call<void>('resetRequests'),
    s3Requests: () => storesChild.call<{ put: number; get: number }>('s3Requests'),
  };
  const zero = runners[0]!;

  const log = (line: string) => process.stderr.write(`bench: ${line} (${Math.round((performance.now() - started) / 1000)} s)\n`);
  try {
    if (options.requests) {
      log('DynamoDB requests per step…');
      console.log(printRequests(await requestsPerStep(ctx, zero)));
      return;
    }
    if (options.cost) {
      log('cost of a session…');
      const result = await sessionCost(ctx, zero);
      console.log([printCost([result]), printInfra(result)].join('\n'));
      return;
    }
    if (options.growth) {
      log(`growth (${GROWTH_TURNS} turns of one session)…`);
      const turns = await growth(ctx, zero);
      log(`growth (1 vs ${GROWTH_SESSIONS} sessions in the table)…`);
      const sessions = await sessionsGrowth(ctx, zero, log);
      console.log([`load average ${loadBefore.join(' / ')} before, ${loadavg().map((l) => l.toFixed(1)).join(' / ')} after`, printGrowth(turns), printSessionsGrowth(sessions)].join('\n'));
      return;
    }
    if (options.loop) {
      log('loop overhead…');
      const file = options.profile ? join(dir, `profile-loop-${stamp}.cpuprofile`) : undefined;
      const { results, profile } = await loopOverhead(ctx, runners, LOOP_RUNS.quick, file);
      const summary = profile ? [printProfile('the loop-overhead runs', await summariseProfile(profile), profile)] : [];
      console.log([`load average ${loadBefore.join(' / ')} before, ${loadavg().map((l) => l.toFixed(1)).join(' / ')} after`, printLoop(results), ...(options.cloud ? [printCloud(results)] : []), ...summary].join('\n'));
      return;
    }
    log('loop overhead…');
    const profileOf = (scenario: string) => (options.profile ? join(dir, `profile-${scenario}-${stamp}.cpuprofile`) : undefined);
    const { results: loop, profile: loopProfile } = await loopOverhead(ctx, runners, quick ? LOOP_RUNS.quick : LOOP_RUNS.full, profileOf('loop'));
    log('DynamoDB requests per step…');
    const requests = await requestsPerStep(ctx, zero);
    let relay: RelayResult[] | undefined;
    const cost: CostResult[] = [];
    let grown: GrowthResult | undefined;
    let mcp: McpOverheadResult | undefined;
    if (!quick) {
      log('relay latency…');
      relay = await relayLatency(ctx, runners);
      log('cost of a session…');
      for (const runner of [...runners, ...experts]) cost.push(await sessionCost(ctx, runner));
      log(`growth (${GROWTH_TURNS} turns)…`);
      grown = await growth(ctx, zero);
      log('MCP tool-call overhead…');
      mcp = await mcpOverhead();
    }
    log(`concurrency (200 sessions per runner, each in a fresh process${options.profile ? '; Zero profiled' : ''})…`);
    const concurrent: ConcurrencyResult[] = [];
    for (const spec of specs) concurrent.push(await concurrency(ctx, spec, spec.kind === 'zero' ? profileOf('concurrency') : undefined));
    log('cold start (bundles, fresh processes)…');
    const cold = await coldStart(quick ? 7 : 11);
    log('the zero CLI (Enter to the first character)…');
    const cli = await cliLatency(quick ? 7 : 15);
    const profiles: { scenario: string; file: string; summary: ProfileSummary }[] = [];
    for (const [scenario, file] of [
      [`the loop-overhead runs (${LOOP_STEPS} steps each, run again under the profiler)`, loopProfile],
      ['the 200 concurrent sessions (profiled while measured: its figures read a little slower)', concurrent.find((c) => c.profile)?.profile],
    ] as const) {
      if (file) profiles.push({ scenario, file, summary: await summariseProfile(file) });
    }

    const machine = { load_average_before: loadBefore, load_average: loadavg().map((l) => Math.round(l * 10) / 10), cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}` };
    const seconds = Math.round((performance.now() - started) / 1000);
    const figures = issue13Figures(loop, requests, concurrent, cold);
    const targets = relay && grown ? evaluateTargets(loop, relay, cost, grown) : undefined;
    const report = [
      `Zero benchmarks${quick ? ' (quick)' : ''}${options.cloud ? ' with AWS in-region store latency (--cloud)' : ''} — ${machine.cpus} cores (${machine.cpu_model}), ${machine.memory_gib} GiB, Node ${machine.node}, ${machine.platform}; load average (1/5/15 min) ${loadBefore.join(' / ')} before, ${machine.load_average.join(' / ')} after; ${seconds} s`,
      'Processes: the fake Anthropic server (answering instantly), dynalite (LevelDB on disk) + s3rver, and Zero\'s server each run apart from the',
      'bench process, which holds the peers and Zero\'s SSE client. Zero\'s CPU and memory are its server\'s; "client cpu" is reading its SSE.',
      printLoop(loop),
      ...(options.cloud ? [printCloud(loop)] : []),
      printRequests(requests),
      ...(relay ? [printRelay(relay)] : []),
      printConcurrency(concurrent),
      ...(cost.length ? [printCost(cost), printInfra(cost.find((c) => c.infra))] : []),
      ...(grown ? [printGrowth(grown)] : []),
      ...(mcp ? [printMcpOverhead(mcp)] : []),
      printColdStart(cold),
      printCliLatency(cli),
      ...profiles.map((p) => printProfile(p.scenario, p.summary, p.file)),
      ...(targets ? [table('Targets of issues 2 and 8', ['target', 'figure', 'met'], targets.map((t) => [t.target, t.figure, t.met ? 'yes' : 'NO']))] : []),
      table('Issue 13: speed and cost', ['figure', 'now', 'target', 'met'], figures.map((f) => [f.figure, f.now, f.target, f.met ? 'yes' : 'NO'])),
    ].join('\n');
    console.log(report);

    const file = join(dir, `bench-${stamp}${quick ? '-quick' : ''}${options.cloud ? '-cloud' : ''}.json`);
    await writeFile(
      file,
      JSON.stringify({ machine, at: new Date().toISOString(), seconds, quick, cloud: options.cloud ?? false, loop, requests, relay, concurrency: concurrent, cost, growth: grown, mcp, cold_start: cold, cli, profiles, targets, issue13: figures }, null, 2),
    );
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

/** `--cloud`: what Zero adds per step over the tool runner, in DynamoDB round trips (target: at most one). */
function printCloud(rows: LoopOverheadResult[]) {
  const zero = rows.find((r) => r.runner === 'zero');
  const runner = rows.find((r) => r.runner.startsWith('anthropic-sdk'));
  if (!zero || !runner) return '';
  const added = zero.wall_per_step_ms - runner.wall_per_step_ms;
  const trips = added / CLOUD_LATENCY.dynamodb.medianMs;
  return table(
    `Cloud latency (DynamoDB median ${CLOUD_LATENCY.dynamodb.medianMs} ms, S3 ${CLOUD_LATENCY.s3.medianMs} ms per request): Zero's wall per step over the tool runner's`,
    ['zero wall/step', 'tool runner wall/step', 'added', 'in DynamoDB round trips', 'target', 'met'],
    [[ms(zero.wall_per_step_ms), ms(runner.wall_per_step_ms), ms(added), trips.toFixed(2), '≤ 1', trips <= 1 ? 'yes' : 'NO']],
  );
}

function printRequests(result: RequestsResult) {
  const fixed = (n: number) => n.toFixed(1);
  const byItem = table(
    `DynamoDB requests of a one-tool turn (user message → tool step → answer) in a warm session, as dynalite served them — ${result.turns} turns; ` +
      `${fixed(result.writes_per_step)} writes and ${fixed(result.reads_per_step)} reads per step; one more tool step in a run: +${fixed(result.marginal_tool_step.writes)} writes, +${fixed(result.marginal_tool_step.reads)} reads; ` +
      `a streaming answer adds ${fixed(result.event_writes_per_streamed_second)} event-log writes per second`,
    ['operation', 'kind', 'item', 'condition failed', 'per turn', 'per step'],
    result.rows.map((r) => [r.operation, r.write ? 'write' : 'read', r.item, r.condition_failed ? 'yes' : '', fixed(r.per_turn), fixed(r.per_turn / result.steps_per_turn)]),
  );
  const byPath = table(
    'The same requests by the code path that sent them (Zero\'s frames, innermost first)',
    ['command', 'item', 'per turn', 'code path'],
    result.paths.map((p) => [p.command, p.item, fixed(p.per_turn), p.path.join(' ← ')]),
  );
  return `${byItem}\n${byPath}`;
}

function printColdStart(result: ColdStartResult) {
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;
  return table(
    `6. Cold start — importing each Lambda bundle in a fresh Node process (median of ${result.runs}, alternating)`,
    ['bundle', 'total', 'loaded at init', 'init ms'],
    result.rows.map((r) => [r.bundle, mb(r.total), mb(r.atInit), ms(r.initMs, 1)]),
  );
}

function printProfile(scenario: string, summary: ProfileSummary, file: string) {
  const row = (e: { name: string; selfMs: number; share: number }) => [e.name, ms(e.selfMs, 0), `${(e.share * 100).toFixed(1)}%`];
  return [
    `\nCPU profile of Zero's server during ${scenario}: ${file}`,
    `${ms(summary.busyMs, 0)} ms busy of ${ms(summary.totalMs, 0)} ms (GC ${ms(summary.gcMs, 0)} ms)`,
    table('Self time by owner', ['owner', 'ms', 'share of busy'], summary.owners.map(row)),
    table('Self time by function', ['function', 'ms', 'share of busy'], summary.functions.map(row)),
    table("Time inside Zero's functions (self and below)", ['function', 'ms', 'share of busy'], summary.inclusive.map(row)),
  ].join('\n');
}

function printRelay(rows: RelayResult[]) {
  return table(
    '2. Relay latency — 500 text deltas 2 ms apart, fake server write → consumer read (ms; median of 3 runs by p99)',
    ['runner', 'p50', 'p99', 'max', 'p99 of each run'],
    rows.map((r) => [r.runner, ms(r.p50_ms), ms(r.p99_ms), ms(r.max_ms), r.p99_each_ms.map((v) => ms(v)).join(' / ')]),
  );
}

function printConcurrency(rows: ConcurrencyResult[]) {
  const main = table(
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
  const zero = rows.find((r) => r.store_requests_per_session);
  if (!zero?.store_requests_per_session) return main;
  const requests = table(
    `DynamoDB requests per session during the 200 sessions (Zero; ${zero.store_requests_per_session.reduce((sum, r) => sum + r.per_session, 0).toFixed(1)} in all)`,
    ['operation', 'item', 'per session'],
    zero.store_requests_per_session.map((r) => [r.operation, r.item, r.per_session.toFixed(1)]),
  );
  return `${main}\n${requests}`;
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

/** Zero's session on AWS at list prices, beside the model's cost; and a running session-hour against Managed Agents'. */
function printInfra(result: CostResult | undefined) {
  const infra = result?.infra;
  if (!result || !infra) return '';
  const usd = (n: number) => `$${n.toFixed(6)}`;
  const { use } = infra;
  const rows = [
    ['Lambda', `${use.lambdaSeconds.toFixed(1)} s × ${use.memoryMb} MB (sst.config.ts; peak RSS measured ${infra.peak_rss_mb.toFixed(0)} MB), ${use.lambdaInvocations} invocations`, usd(infra.usd.lambda)],
    ['DynamoDB', `${use.dynamoWriteUnits} write units, ${use.dynamoReadUnits} read units`, usd(infra.usd.dynamodb)],
    ['S3', `${use.s3Puts} PUT/LIST, ${use.s3Gets} GET`, usd(infra.usd.s3)],
    ['queue (SQS)', `${use.queueRequests} requests`, usd(infra.usd.queue)],
    ['infrastructure', '', usd(infra.usd.total)],
    ['model', `${result.requests} calls (list prices)`, usd(result.usd)],
    ['infrastructure share', 'target ≤ 3 %', `${(infra.share_of_total * 100).toFixed(2)} % (${infra.share_of_total <= 0.03 ? 'met' : 'NOT met'})`],
    ['a running session-hour', `the function held an hour + the store requests of its steps; Managed Agents: $${infra.managed_agents_session_hour_usd.toFixed(2)}`, usd(infra.session_hour_usd)],
  ];
  return table(
    `4b. Zero's ${TURNS}-turn session on AWS (us-east-1 list prices, arm64); Lambda seconds = measured wall ${infra.wall_s.toFixed(2)} s + the model's own time (first token ${MODEL_TIME.firstTokenMs} ms, ${MODEL_TIME.outputTokensPerS} output tokens/s per call)`,
    ['what', 'used', 'USD'],
    rows,
  );
}

function printSessionsGrowth(result: SessionsGrowthResult) {
  return table(
    `5b. Growth with the table — a new ${result.runner} session's one-tool turn with 1 and with ${GROWTH_SESSIONS} more sessions of its user (made in ${result.seed_s.toFixed(0)} s); medians of 15 sessions`,
    ['sessions', 'turn ms', 'step gap ms', 'DDB reads/step', 'DDB writes/step', 'bytes read/step'],
    result.points.map((p) => [p.sessions, ms(p.turn_ms), ms(p.step_gap_ms), p.reads_per_step, p.writes_per_step, p.read_bytes_per_step]),
  );
}

function printGrowth(result: GrowthResult) {
  return table(
    `5. Growth — one ${result.runner} session of ${GROWTH_TURNS} turns (tool step + answer); times are medians of the 11 turns around`,
    ['turn', 'session step', 'turn ms', 'start ms', 'step gap ms', 'DDB writes', 'DDB reads', 'bytes read', 'DDB bytes written', 'bytes/step', 'request tokens'],
    result.turns.map((t) => [t.turn, t.step, ms(t.turn_ms), ms(t.start_ms), ms(t.step_gap_ms), t.dynamodb_writes, t.dynamodb_reads, t.dynamodb_read_bytes, t.dynamodb_bytes, t.bytes_per_step, t.request_tokens]),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
