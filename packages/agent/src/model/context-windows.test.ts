import { describe, expect, it } from 'vitest';
import { contextWindowOf, knownContextWindow } from './context-windows';
import { providersConfigFromEnv } from './providers-config';

describe('context windows', () => {
  it('knows common open models by the names their servers use, Claude at 200k, and a cautious size for the rest', () => {
    expect(knownContextWindow('llama3:8b')).toBe(8_192);
    expect(knownContextWindow('llama3.1:8b')).toBe(131_072);
    expect(knownContextWindow('meta-llama/Llama-3.1-8B-Instruct')).toBe(131_072);
    expect(knownContextWindow('qwen3:8b')).toBe(40_960);
    expect(knownContextWindow('Qwen/Qwen2.5-Coder-7B-Instruct')).toBe(32_768);
    expect(knownContextWindow('gemma3:1b')).toBe(32_768);
    expect(knownContextWindow('gemma3:12b')).toBe(131_072);
    expect(knownContextWindow('mistral-nemo')).toBe(131_072);
    expect(knownContextWindow('gpt-4o-mini')).toBe(128_000);
    expect(knownContextWindow('my-own-finetune')).toBeUndefined();
    expect(contextWindowOf('claude-sonnet-4-6')).toBe(200_000);
    expect(contextWindowOf('my-own-finetune')).toBe(32_768);
  });

  it("takes an endpoint's configured window first, then ZERO_CONTEXT_WINDOW, then the table", () => {
    const providers = providersConfigFromEnv({
      ZERO_MODEL_PROVIDER: 'ollama',
      ZERO_PROVIDER_OLLAMA_URL: 'http://127.0.0.1:11434/v1',
      ZERO_PROVIDER_OLLAMA_CONTEXT_WINDOW: 'qwen3:8b=16384,*=8192',
      ZERO_PROVIDER_VLLM_URL: 'http://127.0.0.1:8000/v1',
      ZERO_PROVIDER_VLLM_CONTEXT_WINDOW: '65536',
    });
    expect(contextWindowOf('ollama:qwen3:8b', { providers })).toBe(16_384);
    // A model named without its provider goes to the default one, ollama here; Claude models do not.
    expect(contextWindowOf('qwen3:8b', { providers })).toBe(16_384);
    expect(contextWindowOf('llama3.1', { providers })).toBe(8_192);
    expect(contextWindowOf('vllm:meta-llama/Llama-3.1-8B-Instruct', { providers })).toBe(65_536);
    expect(contextWindowOf('claude-haiku-4-5', { providers })).toBe(200_000);
    expect(contextWindowOf('claude-haiku-4-5', { providers, override: 50_000 })).toBe(50_000);
    expect(contextWindowOf('ollama:qwen3:8b', { providers, override: 50_000 })).toBe(16_384);
    expect(contextWindowOf('gpt-4o', { override: 50_000 })).toBe(50_000);
  });

  it('refuses a window that is not a whole number of tokens, naming the variable', () => {
    const env = (value: string) => ({ ZERO_PROVIDER_OLLAMA_URL: 'http://127.0.0.1:11434/v1', ZERO_PROVIDER_OLLAMA_CONTEXT_WINDOW: value });
    expect(() => providersConfigFromEnv(env('8k'))).toThrow(/^ZERO_PROVIDER_OLLAMA_CONTEXT_WINDOW: "8k" is not model=value/);
    expect(() => providersConfigFromEnv(env('qwen3=lots'))).toThrow(/^ZERO_PROVIDER_OLLAMA_CONTEXT_WINDOW: the window of "qwen3" must be a whole number/);
    expect(() => providersConfigFromEnv(env('12'))).toThrow(/from 1024/);
  });
});
