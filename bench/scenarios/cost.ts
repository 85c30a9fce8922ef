import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import { MANAGED_AGENTS_SESSION_HOUR_USD, configuredFunctionMemoryMb, infraCost, type InfraUse } from '../support/aws-prices';
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
  /** Zero only: what the session used of AWS and its price at list prices. */
  infra?: InfraResult;
}

/** A model call's own time where Zero runs, for the Lambda seconds (the fake answers at once): first token, then output at this speed. */
export const MODEL_TIME = { firstTokenMs: 1000, outputTokensPerS: 60 };

export interface InfraResult {
  use: InfraUse;
  /** The measured wall of the 10 turns (the fake model answering at once) and the same with the model's own time added. */
  wall_s: number;
  wall_with_model_s: number;
  /** Peak RSS of Zero's server during the session, beside the memory sst.config.ts sets. */
  peak_rss_mb: number;
  usd: ReturnType<typeof infraCost>;
  /** Infrastructure ÷ (infrastructure + model). */
  share_of_total: number;
  /** One running session-hour: the function held for the hour, and the store requests of the steps an hour holds at MODEL_TIME. */
  session_hour_usd: number;
  managed_agents_session_hour_usd: number;
}

/** Scenario 4: a 10-turn session, two tool calls per turn, billed as a real account would be. */
export async function sessionCost(ctx: BenchContext, runner: Runner): Promise<CostResult> {
  await ctx.fake.plan({ toolSteps: 1, callsPerStep: 2, answer: SHORT_ANSWER });
  await ctx.fake.reset();
  const session = runner.open();
  await ctx.resetStoreRequests();
  const before = await runner.server?.stats();
  await runner.server?.resetMemory();
  const started = performance.now();
  for (let turn = 1; turn <= TURNS; turn++) await session.send(userMessage(turn));
  const wallMs = performance.now() - started;
  const { bills } = await ctx.fake.stats();
  const perTurn = bills.length / TURNS;
  const later = bills.slice(perTurn);
  const total = (key: 'input_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens' | 'output_tokens', from = bills) => sum(from.map((b) => b[key]));
  const laterInput = total('input_tokens', later) + total('cache_read_input_tokens', later) + total('cache_creation_input_tokens', later);
  const usd = sum(bills.map((b) => b.usd));
  let infra: InfraResult | undefined;
  if (runner.server && before) {
    // Requests sent after the last `done` (the lease's release, the run's spend) land within this.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await runner.server.stats();
    const counts = await ctx.storeRequests();
    const s3 = await ctx.s3Requests();
    const writes = sum(counts.filter((c) => c.write).map((c) => c.count));
    const reads = sum(counts.filter((c) => !c.write).map((c) => c.count));
    // A write request unit per 1 KB of item: each write one at least, the bytes Zero wrote beyond 1 KB an item more.
    const logWrites = after.persistence.writes - before.persistence.writes;
    const extraUnits = Math.max(0, Math.ceil((after.persistence.bytes - before.persistence.bytes) / 1024) - logWrites);
    const modelSeconds = sum(bills.map((b) => MODEL_TIME.firstTokenMs / 1000 + b.output_tokens / MODEL_TIME.outputTokensPerS));
    const memoryMb = configuredFunctionMemoryMb();
    const use: InfraUse = {
      lambdaSeconds: wallMs / 1000 + modelSeconds,
      lambdaInvocations: TURNS,
      memoryMb,
      dynamoWriteUnits: writes + extraUnits,
      // Items read are under 4 KB: a strongly consistent read or a query page of them is one unit.
      dynamoReadUnits: reads,
      s3Puts: s3.put,
      s3Gets: s3.get,
      queueRequests: 0,
    };
    const cost = infraCost(use);
    const steps = bills.length;
    const secondsPerStep = use.lambdaSeconds / steps;
    const perStepStores = (cost.dynamodb + cost.s3) / steps;
    const hour = infraCost({ ...use, lambdaSeconds: 3600, lambdaInvocations: 0, dynamoWriteUnits: 0, dynamoReadUnits: 0, s3Puts: 0, s3Gets: 0 }).total + (3600 / secondsPerStep) * perStepStores;
    infra = {
      use,
      wall_s: wallMs / 1000,
      wall_with_model_s: use.lambdaSeconds,
      peak_rss_mb: after.peakRss / 2 ** 20,
      usd: cost,
      share_of_total: cost.total / (cost.total + usd),
      session_hour_usd: hour,
      managed_agents_session_hour_usd: MANAGED_AGENTS_SESSION_HOUR_USD,
    };
  }
  return {
    ...(infra ? { infra } : {}),
    runner: runner.name,
    requests: bills.length,
    input_tokens: total('input_tokens'),
    cache_read_input_tokens: total('cache_read_input_tokens'),
    cache_creation_input_tokens: total('cache_creation_input_tokens'),
    output_tokens: total('output_tokens'),
    billed_input_equivalent: Math.round(total('input_tokens') + 1.25 * total('cache_creation_input_tokens') + 0.1 * total('cache_read_input_tokens')),
    usd,
    cache_read_share_from_turn_2: total('cache_read_input_tokens', later) / laterInput,
  };
}
