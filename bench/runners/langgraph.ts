import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessageChunk, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { API_KEY, MODEL, benchTools } from '../workload';
import { EPHEMERAL, type BenchSession, type Config, type Runner, type RunnerEnv } from './runner';

/**
 * LangGraph.js's prebuilt ReAct agent over `@langchain/anthropic`, streamed
 * with `streamMode: ['messages', 'values']`. Expert: the system prompt as a
 * cached block plus the top-level `cache_control` (automatic caching) passed
 * through `invocationKwargs`.
 */
export function langGraphRunner(env: RunnerEnv, config: Config): Runner {
  const expert = config === 'expert';
  const llm = new ChatAnthropic({
    model: MODEL,
    apiKey: API_KEY,
    anthropicApiUrl: env.fakeUrl,
    maxRetries: 0,
    maxTokens: 8192,
    streaming: true,
    ...(expert ? { invocationKwargs: { cache_control: EPHEMERAL } } : {}),
  });
  const tools = benchTools.map((t) => tool(async (input: unknown) => t.run(input), { name: t.name, description: t.description, schema: t.input }));
  const systemText = env.system.join('\n\n');
  const prompt = expert ? new SystemMessage({ content: [{ type: 'text', text: systemText, cache_control: EPHEMERAL }] }) : systemText;
  const agent = createReactAgent({ llm, tools, prompt });
  return {
    name: `langgraph createReactAgent${expert ? ' (expert)' : ''}`,
    open(): BenchSession {
      let messages: BaseMessage[] = [];
      return {
        async send(message, hooks) {
          const t0 = performance.now();
          let firstEventMs: number | undefined;
          const stream = await agent.stream({ messages: [...messages, new HumanMessage(message)] }, { streamMode: ['messages', 'values'], recursionLimit: 2000 });
          for await (const [mode, chunk] of stream as AsyncIterable<[string, any]>) {
            firstEventMs ??= performance.now() - t0;
            if (mode === 'messages') {
              const [part] = chunk as [BaseMessage];
              if (part instanceof AIMessageChunk && part.text) hooks?.onText?.(part.text);
            } else if (mode === 'values') messages = chunk.messages;
          }
          return { firstEventMs };
        },
      };
    },
    close: async () => undefined,
  };
}
