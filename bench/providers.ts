/**
 * The same session on each model provider, and what Zero reports it cost: the cost scenario's
 * 10 turns, two tool calls and an answer per turn, run through Zero against each provider's fake
 * (Anthropic's with its simulated prompt cache, and Bedrock's answering from it; an OpenAI-compatible endpoint priced on its table,
 * and one whose model the table does not price, as a local Ollama would be). The last rows price
 * the Anthropic session's tokens on the other tables, like for like.
 * Run with `npx tsx bench/providers.ts`.
 */
import { ProviderRouter, type ProviderEntry } from '@zero/agent/model/router';
import type { ModelProvider, ModelUsage } from '@zero/agent/model/provider';
import { postJson, startHarness, type Harness } from '../tests/support/harness';
import type { FakeTurn } from '../tests/support/fake-anthropic';
import { chatStream } from '../tests/support/sse';
import { table } from './support/stats';

const TURNS = 10;
/** OpenRouter-like list prices (USD per million tokens) for the endpoint's priced model. */
const ENDPOINT_PRICES = { 'qwen3-235b': { input: 0.2, output: 0.6 } };
const filler = 'The checkout service calls the payment API, retries twice and logs the order id. ';

/** Two echo calls, then the answer, for every user message. */
function turnFor(hasResults: boolean): FakeTurn {
  return hasResults
    ? { text: filler.repeat(3) }
    : { toolCalls: [{ name: 'echo', input: { text: 'order 1' } }, { name: 'echo', input: { text: 'order 2' } }] };
}

interface Session {
  provider: string;
  model: string;
  requests: number;
  usage: ModelUsage & { cost_usd: number; cost_known?: false };
}

async function session(h: Harness, provider: string, model: string, requests: () => number): Promise<Session> {
  const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
  const id = json.session.session_id as string;
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 } as Session['usage'];
  const before = requests();
  for (let n = 1; n <= TURNS; n++) {
    const { events } = await chatStream(h.url, { session_id: id, model, message: `Turn ${n}. ${filler.repeat(10)}` });
    const done = events.at(-1) as { type: string; status: string; usage: Session['usage'] };
    if (done.type !== 'done' || done.status !== 'completed') throw new Error(`turn ${n} on ${provider} ended ${JSON.stringify(done)}`);
    for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'cost_usd'] as const) usage[key] += done.usage[key];
    if (done.usage.cost_known === false) usage.cost_known = false;
  }
  usage.cost_usd = Math.round(usage.cost_usd * 1e6) / 1e6;
  return { provider, model, requests: requests() - before, usage };
}

const h = await startHarness({ openai: { prices: ENDPOINT_PRICES }, bedrock: true });
try {
  h.fake.simulatePromptCache();
  h.fake.respondWith((request) => turnFor(JSON.stringify(request.body.messages.at(-1)).includes('"tool_result"')));
  h.openai!.respondWith((request) => turnFor(request.body.messages.at(-1)?.role === 'tool'));
  const sessions = [
    await session(h, 'Anthropic (list prices, prompt cache)', 'claude-sonnet-4-6', () => h.fake.requests.length),
    await session(h, 'Bedrock (Claude list prices, prompt cache)', 'bedrock:claude-sonnet-4-6', () => h.bedrock!.requests.length),
    await session(h, 'OpenAI-compatible, priced (ZERO_PROVIDER_FAKEAI_PRICES)', 'fakeai:qwen3-235b', () => h.openai!.requests.length),
    await session(h, 'OpenAI-compatible, not priced (a local model)', 'fakeai:llama3.3', () => h.openai!.requests.length),
  ];
  // The Anthropic session's tokens on each table (Bedrock bills Claude at Anthropic's list prices).
  const idle: ModelProvider = { async *stream() {} };
  const router = new ProviderRouter(
    new Map<string, ProviderEntry>([
      ['anthropic', { kind: 'claude', provider: idle }],
      ['bedrock', { kind: 'claude', provider: idle }],
      ['fakeai', { kind: 'openai', provider: idle, prices: ENDPOINT_PRICES }],
    ]),
  );
  const claude = sessions[0]!.usage;
  const alike = ['anthropic:claude-sonnet-4-6', 'bedrock:claude-sonnet-4-6', 'anthropic:claude-haiku-4-5', 'fakeai:qwen3-235b', 'fakeai:llama3.3'].map((model) => {
    const cost = router.costOf(model, claude);
    return [model, cost.known ? `$${cost.usd.toFixed(4)}` : 'unknown (counted as $0)'];
  });
  console.log(
    table(
      `The same ${TURNS}-turn session (2 tool calls + an answer per turn) on each provider, as Zero reports it`,
      ['provider', 'model', 'requests', 'input', 'cache read', 'cache write', 'output', 'cost'],
      sessions.map((s) => [
        s.provider,
        s.model,
        String(s.requests),
        String(s.usage.input_tokens),
        String(s.usage.cache_read_input_tokens),
        String(s.usage.cache_creation_input_tokens),
        String(s.usage.output_tokens),
        s.usage.cost_known === false ? `unknown ($${s.usage.cost_usd} counted)` : `$${s.usage.cost_usd.toFixed(4)}`,
      ]),
    ),
  );
  console.log(table("The Anthropic session's tokens on each provider's price table", ['model', 'cost'], alike));
} finally {
  await h.close();
}
