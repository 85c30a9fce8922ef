import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import { sum } from '../support/stats';
import { SHORT_ANSWER, userMessage } from '../workload';

export const TURNS = 10;

export interface CostResult {
  runner: string;
  requests: number;
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens: number;
  /** Input tokens weighted by their price: input + 1.25 × cache write + 0.1 × cache read. */
  billed_input_equivalent: number;
  usd: number;
  /** Of all input tokens from turn 2 on, the share read from the cache. */
  cache_read_share_from_turn_2: number;
}

/** Scenario 4: a 10-turn session, two tool calls per turn, billed as a real account would be. */
export async function sessionCost(ctx: BenchContext, runner: Runner): Promise<CostResult> {
  await ctx.fake.plan({ toolSteps: 1, callsPerStep: 2, answer: SHORT_ANSWER });
  await ctx.fake.reset();
  const session = runner.open();
  for (let turn = 1; turn <= TURNS; turn++) await session.send(userMessage(turn));
  const { bills } = await ctx.fake.stats();
  const perTurn = bills.length / TURNS;
  const later = bills.slice(perTurn);
  const total = (key: 'input_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens' | 'output_tokens', from = bills) => sum(from.map((b) => b[key]));
  const laterInput = total('input_tokens', later) + total('cache_read_input_tokens', later) + total('cache_creation_input_tokens', later);
  return {
    runner: runner.name,
    requests: bills.length,
    input_tokens: total('input_tokens'),
    cache_read_input_tokens: total('cache_read_input_tokens'),
    cache_creation_input_tokens: total('cache_creation_input_tokens'),
    output_tokens: total('output_tokens'),
    billed_input_equivalent: Math.round(total('input_tokens') + 1.25 * total('cache_creation_input_tokens') + 0.1 * total('cache_read_input_tokens')),
    usd: sum(bills.map((b) => b.usd)),
    cache_read_share_from_turn_2: total('cache_read_input_tokens', later) / laterInput,
  };
}
