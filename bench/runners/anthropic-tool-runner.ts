import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta';
import { API_KEY, MODEL, benchTools } from '../workload';
import { EPHEMERAL, type BenchSession, type Config, type Runner, type RunnerEnv } from './runner';

/**
 * The Anthropic SDK's own loop: `client.beta.messages.toolRunner`, streaming,
 * with `thread: false` (the full history each turn; the fake holds no server
 * threads). Expert: the system prompt as a cached block plus the top-level
 * `cache_control` (automatic caching of the conversation).
 */
export function anthropicToolRunner(env: RunnerEnv, config: Config): Runner {
  const client = new Anthropic({ apiKey: API_KEY, baseURL: env.fakeUrl, maxRetries: 0 });
  const tools = benchTools.map((tool) => betaZodTool({ name: tool.name, description: tool.description, inputSchema: tool.input, run: async (input) => tool.run(input) }));
  const systemText = env.system.join('\n\n');
  const expert = config === 'expert';
  return {
    name: `anthropic-sdk toolRunner${expert ? ' (expert)' : ''}`,
    open(): BenchSession {
      let history: BetaMessageParam[] = [];
      return {
        async send(message, hooks) {
          const t0 = performance.now();
          let firstEventMs: number | undefined;
          history = [...history, { role: 'user', content: message }];
          const runner = client.beta.messages.toolRunner({
            model: MODEL,
            max_tokens: 8192,
            system: expert ? [{ type: 'text', text: systemText, cache_control: EPHEMERAL }] : systemText,
            ...(expert ? { cache_control: EPHEMERAL } : {}),
            tools,
            messages: history,
            thread: false,
            stream: true,
            max_iterations: 1000,
          });
          let last: Anthropic.Beta.BetaMessage | undefined;
          for await (const stream of runner) {
            for await (const event of stream) {
              firstEventMs ??= performance.now() - t0;
              if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') hooks?.onText?.(event.delta.text);
            }
            last = await stream.finalMessage();
          }
          history = [...runner.params.messages];
          if (last && history.at(-1)?.role !== 'assistant') history.push({ role: 'assistant', content: last.content });
          return { firstEventMs };
        },
      };
    },
    close: async () => undefined,
  };
}
