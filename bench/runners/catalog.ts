import { aiSdkRunner } from './ai-sdk';
import { anthropicToolRunner } from './anthropic-tool-runner';
import { langGraphRunner } from './langgraph';
import type { Config, Runner, RunnerEnv } from './runner';
import { zeroRunner } from './zero';

/** A runner named so another process can build it. */
export interface RunnerSpec {
  kind: 'zero' | 'anthropic' | 'ai-sdk' | 'langgraph';
  config: Config;
}

export const DEFAULT_SPECS: RunnerSpec[] = [
  { kind: 'zero', config: 'default' },
  { kind: 'anthropic', config: 'default' },
  { kind: 'ai-sdk', config: 'default' },
  { kind: 'langgraph', config: 'default' },
];

export const EXPERT_SPECS: RunnerSpec[] = DEFAULT_SPECS.filter((s) => s.kind !== 'zero').map((s) => ({ ...s, config: 'expert' }));

export async function createRunner(spec: RunnerSpec, env: RunnerEnv): Promise<Runner> {
  switch (spec.kind) {
    case 'zero':
      return zeroRunner(env);
    case 'anthropic':
      return anthropicToolRunner(env, spec.config);
    case 'ai-sdk':
      return aiSdkRunner(env, spec.config);
    case 'langgraph':
      return langGraphRunner(env, spec.config);
  }
}
