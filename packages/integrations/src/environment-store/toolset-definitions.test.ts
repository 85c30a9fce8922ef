import { betaAgentToolset20260401 } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_TOOL_DEFINITIONS } from './toolset-definitions';

describe('environment tool definitions', () => {
  it('are the official SDK runner’s, so what the model calls is what `zero worker` runs', () => {
    const sdk = betaAgentToolset20260401({ workdir: '/nonexistent' }).map((tool) => {
      const { name, description, input_schema } = tool as unknown as { name: string; description: string; input_schema: unknown };
      return { name, description, input_schema };
    });
    expect(ENVIRONMENT_TOOL_DEFINITIONS).toEqual(sdk);
  });
});
