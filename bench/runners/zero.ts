import { join } from 'node:path';
import { readSse } from '../../tests/support/sse';
import { forkChild } from '../support/child';
import type { TracedPath } from '../support/db-trace';
import { BENCH_ZERO_KEY } from '../workload';
import type { BenchSession, Runner, RunnerEnv, ServerStats } from './runner';

/**
 * Zero as a client sees it: its local server (same Hono app as Lambda) in
 * its own process, DynamoDB via dynalite, the SSE stream read over HTTP here.
 */
export async function zeroRunner(env: RunnerEnv): Promise<Runner> {
  // ZERO_BENCH_SERVER_NODE_ARGS adds Node flags to the server (e.g. "--trace-gc" or "--cpu-prof") when looking into a figure.
  const extra = process.env.ZERO_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const server = await forkChild<{ url: string }>(join(import.meta.dirname, '..', 'processes', 'zero-server.ts'), ['--expose-gc', ...extra], {
    ZERO_BENCH_ENV: JSON.stringify(env),
  });
  const url = server.ready.url;
  return {
    name: 'zero',
    open(): BenchSession {
      let sessionId: string | undefined;
      return {
        async send(message, hooks) {
          const t0 = performance.now();
          const response = await fetch(`${url}/api/v2/chat`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_ZERO_KEY}` },
            body: JSON.stringify({ message, stream: true, ...(sessionId ? { session_id: sessionId } : {}) }),
          });
          if (!response.ok) throw new Error(`zero answered ${response.status}: ${await response.text()}`);
          let firstEventMs: number | undefined;
          for await (const event of readSse(response)) {
            firstEventMs ??= performance.now() - t0;
            if (event.type === 'start') sessionId = event.session_id;
            else if (event.type === 'text') hooks?.onText?.(event.delta);
            else if (event.type === 'error') throw new Error(`zero run failed: ${event.message}`);
          }
          return { firstEventMs };
        },
      };
    },
    server: {
      url,
      stats: () => server.call<ServerStats>('stats'),
      resetMemory: () => server.call<{ rss: number; heapUsed: number }>('resetMemory'),
      startTrace: () => server.call<void>('traceStart'),
      stopTrace: () => server.call<TracedPath[]>('traceStop'),
      startProfile: () => server.call<void>('profileStart'),
      stopProfile: (file) => server.call<string>('profileStop', file),
    },
    close: () => server.stop(),
  };
}
