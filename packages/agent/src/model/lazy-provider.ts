import type { ModelProvider } from './provider';

/** A provider whose code is loaded on its first call (cold start: most deployments never make one of its kind). */
export function lazyProvider(load: () => Promise<ModelProvider>): ModelProvider {
  let loaded: Promise<ModelProvider> | undefined;
  return {
    async *stream(request, signal, options) {
      loaded ??= load();
      yield* (await loaded).stream(request, signal, options);
    },
  };
}
