import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { buildSystemPrompt } from '@zero/agent/loop/prompt';
import { defineTool, type ToolSpec } from '@zero/runtime/tools/tool';
import { parseAgentMarkdown } from '@zero/agent/definitions/parse';

/** What every runner in the benchmark gets: the same model, agent prompt, tools and scripted answers. */
export const MODEL = 'claude-sonnet-4-6';
/** The bench's bearer key for Zero's API (a static key, like the local stack's development key). */
export const BENCH_ZERO_KEY = 'zbench_static_key_0000000000000000';

export const AGENT_ID = 'bench';
export const API_KEY = 'sk-ant-bench-not-a-real-key';

/** A tool as every runner declares it: zod input, a description for the model, a cheap synchronous answer. */
export interface BenchTool {
  name: string;
  description: string;
  input: z.ZodObject<any>;
  /** An input the scripted model sends, varied by turn. */
  example(turn: number): Record<string, unknown>;
  run(input: any): string;
}

export const benchTools: BenchTool[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city: temperature in Celsius and conditions.',
    input: z.object({ city: z.string() }),
    example: (t) => ({ city: ['Lisbon', 'Oslo', 'Lagos', 'Lima'][t % 4] }),
    run: ({ city }) => `${city}: 18 °C, light rain`,
  },
  {
    name: 'get_time',
    description: 'Current local time in an IANA time zone.',
    input: z.object({ zone: z.string() }),
    example: (t) => ({ zone: ['Europe/Paris', 'Asia/Tokyo', 'America/Denver'][t % 3] }),
    run: ({ zone }) => `${zone}: 14:05`,
  },
  {
    name: 'add',
    description: 'Add two numbers exactly.',
    input: z.object({ a: z.number(), b: z.number() }),
    example: (t) => ({ a: t, b: 2 * t + 1 }),
    run: ({ a, b }) => String(a + b),
  },
  {
    name: 'lookup_user',
    description: 'Look up a user by id: name, team and role.',
    input: z.object({ id: z.string() }),
    example: (t) => ({ id: `u_${1000 + t}` }),
    run: ({ id }) => `${id}: Ada Example, platform team, maintainer`,
  },
  {
    name: 'search_docs',
    description: 'Search the internal documentation; returns the three best matching titles.',
    input: z.object({ query: z.string(), limit: z.number().int().optional() }),
    example: (t) => ({ query: `deploy step ${t}` }),
    run: ({ query }) => `Results for "${query}": Deploying, Rollbacks, Feature flags`,
  },
  {
    name: 'get_stock',
    description: 'Latest price of a stock ticker in USD.',
    input: z.object({ symbol: z.string() }),
    example: (t) => ({ symbol: ['ACME', 'INIT', 'ZRO'][t % 3] }),
    run: ({ symbol }) => `${symbol}: 123.45 USD`,
  },
  {
    name: 'convert_currency',
    description: 'Convert an amount between two ISO currency codes at today’s rate.',
    input: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
    example: (t) => ({ amount: 100 + t, from: 'EUR', to: 'USD' }),
    run: ({ amount, from, to }) => `${amount} ${from} = ${(amount * 1.08).toFixed(2)} ${to}`,
  },
  {
    name: 'echo',
    description: 'Echo the text back unchanged.',
    input: z.object({ text: z.string() }),
    example: (t) => ({ text: `ping ${t}` }),
    run: ({ text }) => text,
  },
];

/** The bench tools as Zero registers them. */
export function zeroTools(): ToolSpec<any>[] {
  return benchTools.map((tool) =>
    // Lookups and arithmetic with no side effects, as the agents' investigation tools are: read-only.
    defineTool({ name: tool.name, description: tool.description, input: tool.input, readOnly: true, execute: async (input) => tool.run(input) }),
  );
}

/**
 * The agent definition: a realistic support-desk agent whose system prompt
 * is about 3,000 tokens (at the fake's 4 characters per token).
 */
export function agentMarkdown(): string {
  const areas = ['billing', 'deployments', 'access', 'incidents', 'data exports', 'integrations', 'quotas', 'security reviews'];
  const knowledge = Array.from({ length: 64 }, (_, i) => {
    const area = areas[i % areas.length]!;
    return `Policy ${i + 1} (${area}): when a customer asks about ${area}, check the account tier first, quote the documented limit, and name the runbook section ${String.fromCharCode(65 + (i % 26))}${i}.`;
  });
  return [
    '---',
    'name: Bench',
    'description: A support-desk agent used by the benchmarks; answers with tools and short summaries.',
    `tools: ${benchTools.map((t) => t.name).join(', ')}`,
    'model: sonnet',
    'voice: neutral',
    '---',
    '',
    '## Role',
    '',
    'You answer operational questions for the customers of a hosting company. You use tools to look things up rather than guessing, and you say which tool each figure came from.',
    '',
    '## Capabilities',
    '',
    ...areas.map((a) => `- Answer questions about ${a}, with figures from the tools`),
    '',
    '## Process',
    '',
    '1. Restate the question in one line.',
    '2. Call the tools that answer it; call independent tools together.',
    '3. Answer in at most five sentences, then list the tool results you used.',
    '',
    '## Knowledge',
    '',
    ...knowledge.map((k) => `- ${k}`),
    '',
    '<!-- VOICE:neutral -->',
    'Plain and precise; lead with the answer.',
    '<!-- /VOICE -->',
    '',
  ].join('\n');
}

/** Writes the agent into a fresh directory, for Zero's directory catalog. */
export async function writeAgentDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'zero-bench-agents-'));
  await writeFile(join(dir, `${AGENT_ID}.md`), agentMarkdown());
  return dir;
}

/** The system prompt Zero builds for this agent: the peers get the same text. */
export function systemPromptBlocks(): string[] {
  const parsed = parseAgentMarkdown(`${AGENT_ID}.md`, agentMarkdown());
  if (!parsed.ok) throw new Error(`bench agent does not parse: ${parsed.error.message}`);
  const agent = parsed.agent;
  return buildSystemPrompt({
    agent,
    voice: agent.default_voice,
    tools: benchTools.filter((t) => agent.tools.includes(t.name)).map((t) => ({ name: t.name, description: t.description })),
  }).map((block) => block.text);
}

/**
 * The scripted model, the same for every runner. In each turn (one user
 * message) the model calls `callsPerStep` tools in each of its first
 * `toolSteps` steps, then answers with `answer` streamed as the given chunks.
 */
export interface Plan {
  toolSteps: number;
  callsPerStep: number;
  answer: string[];
  deltaDelayMs?: number;
  /** Record when each text delta leaves the fake (relay latency). */
  recordDeltas?: boolean;
}

/** A short answer of a few dozen tokens. */
export const SHORT_ANSWER = 'Here is what the tools report: the figures above are current, and nothing needs your action today. '
  .match(/\S+\s*/g)!
  .map(String);

/** The user message of turn `n` of a session. */
export const userMessage = (n: number) => `Question ${n}: what do the tools say about today's figures for account ${n}?`;
