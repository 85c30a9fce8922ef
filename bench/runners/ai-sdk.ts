import { createAnthropic } from '@ai-sdk/anthropic';
import { stepCountIs, streamText, tool, type ModelMessage, type SystemModelMessage } from 'ai';
import { API_KEY, MODEL, benchTools } from '../workload';
import { EPHEMERAL, type BenchSession, type Config, type Runner, type RunnerEnv } from './runner';

const cached = { anthropic: { cacheControl: EPHEMERAL } };

/**
 * The Vercel AI SDK: `streamText` with tools and `stopWhen` (multi-step tool
 * calling), history kept as `response.messages`. Expert: the system prompt
 * with a cache breakpoint, and `prepareStep` putting one on the last message.
 */
export function aiSdkRunner(env: RunnerEnv, config: Config): Runner {
  const anthropic = createAnthropic({ apiKey: API_KEY, baseURL: `${env.fakeUrl}/v1` });
  const tools = Object.fromEntries(
    benchTools.map((t) => [t.name, tool({ description: t.description, inputSchema: t.input, execute: async (input: unknown) => t.run(input) })]),
  );
  const systemText = env.system.join('\n\n');
  const expert = config === 'expert';
  const system: string | SystemModelMessage = expert ? { role: 'system', content: systemText, providerOptions: cached } : systemText;
  return {
    name: `ai-sdk streamText${expert ? ' (expert)' : ''}`,
    open(): BenchSession {
      const messages: ModelMessage[] = [];
      return {
        async send(message, hooks) {
          const t0 = performance.now();
          let firstEventMs: number | undefined;
          messages.push({ role: 'user', content: message });
          const result = streamText({
            model: anthropic(MODEL),
            system,
            messages,
            tools,
            maxOutputTokens: 8192,
            maxRetries: 0,
            stopWhen: stepCountIs(1000),
            ...(expert
              ? {
                  prepareStep: ({ messages: stepMessages }: { messages: ModelMessage[] }) => ({
                    messages: stepMessages.map((m, i) => (i === stepMessages.length - 1 ? ({ ...m, providerOptions: cached } as ModelMessage) : m)),
                  }),
                }
              : {}),
          });
          for await (const part of result.fullStream) {
            firstEventMs ??= performance.now() - t0;
            if (part.type === 'text-delta') hooks?.onText?.(part.text);
            else if (part.type === 'error') throw part.error;
          }
          messages.push(...(await result.response).messages);
          return { firstEventMs };
        },
      };
    },
    close: async () => undefined,
  };
}
