import type { ColdStartResult } from '../scenarios/cold-start';
import type { ConcurrencyResult } from '../scenarios/concurrency';
import type { CostResult } from '../scenarios/cost';
import type { GrowthResult } from '../scenarios/growth';
import type { LoopOverheadResult } from '../scenarios/loop-overhead';
import type { RelayResult } from '../scenarios/relay';
import type { RequestsResult } from '../scenarios/requests';
import { ms } from './stats';

/** One row of issue 13's table: the figure as measured in this run, beside its target. */
export interface Issue13Figure {
  figure: string;
  now: string;
  target: string;
  met: boolean;
}

/** Issue 13's six figures ("Speed and cost"), each from this run alone. */
export function issue13Figures(loop: LoopOverheadResult[], requests: RequestsResult, concurrent: ConcurrencyResult[], cold: ColdStartResult): Issue13Figure[] {
  const zeroLoop = loop.find((r) => r.runner === 'zero')!;
  const runnerLoop = loop.find((r) => r.runner.startsWith('anthropic-sdk'))!;
  const zeroConcurrent = concurrent.find((r) => r.runner === 'zero')!;
  const runnerConcurrent = concurrent.find((r) => r.runner.startsWith('anthropic-sdk'))!;
  const loopRatio = zeroLoop.wall_per_step_ms / runnerLoop.wall_per_step_ms;
  const throughput = zeroConcurrent.steps_per_s / runnerConcurrent.steps_per_s;
  const api = cold.rows.find((r) => r.bundle === 'api')!;
  const baseline = cold.rows.find((r) => r.bundle === 'baseline')!;
  return [
    {
      figure: 'loop overhead per step, Zero ÷ Anthropic tool runner (wall, outside the model)',
      now: `${loopRatio.toFixed(2)}× (${ms(zeroLoop.wall_per_step_ms)} vs ${ms(runnerLoop.wall_per_step_ms)} ms)`,
      target: '≤ 2.0×',
      met: loopRatio <= 2,
    },
    {
      figure: 'DynamoDB write requests per step, one-tool turn, warm session',
      now: `${requests.writes_per_step.toFixed(1)} (${(requests.writes_per_step * requests.steps_per_turn).toFixed(1)} per turn; +${requests.marginal_tool_step.writes.toFixed(1)} per extra tool step)`,
      target: '≤ 4',
      met: requests.writes_per_step <= 4,
    },
    {
      figure: '200 concurrent sessions: Zero steps/s ÷ tool runner steps/s',
      now: `${throughput.toFixed(2)} (${zeroConcurrent.steps_per_s.toFixed(0)} vs ${runnerConcurrent.steps_per_s.toFixed(0)})`,
      target: '≥ 0.5',
      met: throughput >= 0.5,
    },
    {
      figure: '200 concurrent sessions: first event p99 (Zero)',
      now: `${(zeroConcurrent.first_event_ms.p99 / 1000).toFixed(2)} s`,
      target: '≤ 1 s',
      met: zeroConcurrent.first_event_ms.p99 <= 1000,
    },
    {
      figure: 'request → start p50, new session',
      now: `${ms(zeroLoop.first_event_ms.p50, 1)} ms`,
      target: '≤ 30 ms',
      met: zeroLoop.first_event_ms.p50 <= 30,
    },
    {
      figure: 'API cold-start import ÷ baseline import (both bundled as Zero deploys the API)',
      now: `${cold.ratio.toFixed(2)} (${ms(api.initMs, 1)} vs ${ms(baseline.initMs, 1)} ms; ${cold.ratio_unsplit.toFixed(2)} vs the baseline unsplit)`,
      target: '≤ 1.0',
      met: cold.ratio <= 1,
    },
  ];
}

/** The targets of issues 2 and 8 (the full run only: they need every peer, relay, cost and growth). */
export interface Target {
  target: string;
  figure: string;
  met: boolean;
}

export function evaluateTargets(loop: LoopOverheadResult[], relay: RelayResult[], cost: CostResult[], grown: GrowthResult): Target[] {
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
    { target: 'issue 2 (b) request → start p50 ≤ 30 ms', figure: `${ms(zeroLoop.first_event_ms.p50)} ms new session, ${ms(last.start_ms)} ms at turn ${last.turn}`, met: zeroLoop.first_event_ms.p50 <= 30 && last.start_ms <= 30 },
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
      target: `growth flat: DynamoDB reads and bytes read per turn at ${last.turn} ≤ turn 1`,
      figure: `${last.dynamodb_reads} reads, ${last.dynamodb_read_bytes} B vs ${first.dynamodb_reads} reads, ${first.dynamodb_read_bytes} B`,
      met: last.dynamodb_reads <= first.dynamodb_reads && last.dynamodb_read_bytes <= first.dynamodb_read_bytes,
    },
    {
      target: `growth flat: DynamoDB bytes/turn at ${last.turn} ≤ turn 1`,
      figure: `${last.dynamodb_bytes} B vs ${first.dynamodb_bytes} B (${last.dynamodb_writes} vs ${first.dynamodb_writes} writes)`,
      met: last.dynamodb_bytes <= first.dynamodb_bytes,
    },
    {
      target: `growth flat: turn latency at ${last.turn} within 25% of turn 1`,
      figure: `${ms(last.turn_ms)} vs ${ms(first.turn_ms)} ms (${(last.turn_ms / first.turn_ms).toFixed(2)}×)`,
      met: last.turn_ms <= 1.25 * first.turn_ms,
    },
  ];
}

