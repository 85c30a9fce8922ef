import { DEFAULT_LIMITS } from '@zero/core';
import { startServer } from '../../local/server';
import { readSse } from '../../tests/support/sse';
import { AGENT_ID, API_KEY, zeroTools } from '../workload';
import type { BenchSession, Runner, RunnerEnv } from './runner';

/** Zero as a client sees it: its local server (same Hono app as Lambda), DynamoDB via dynalite, SSE over HTTP. */
export async function zeroRunner(env: RunnerEnv): Promise<Runner> {
  const server = await startServer({
    store: env.store,
    anthropic: { apiKey: API_KEY, baseURL: env.fakeUrl, maxRetries: 0 },
    limits: { ...DEFAULT_LIMITS, maxSteps: 1000, maxToolCalls: 10_000, maxCallsPerTool: 10_000 },
    agentsDir: env.agentsDir,
    defaultAgentId: AGENT_ID,
    tools: zeroTools(),
  });
  // Time spent waiting on DynamoDB, for the persistence share (bench-only instrumentation).
  const db = (server.runtime.sessions as unknown as { db: { send: (...args: any[]) => Promise<unknown> } }).db;
  const send = db.send.bind(db);
  let dbMs = 0;
  db.send = async (...args: any[]) => {
    const t0 = performance.now();
    try {
      return await send(...args);
    } finally {
      dbMs += performance.now() - t0;
    }
  };

  return {
    name: 'zero',
    open(): BenchSession {
      let sessionId: string | undefined;
      return {
        async send(message, hooks) {
          const t0 = performance.now();
          const response = await fetch(`${server.url}/api/v2/chat`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
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
    persistence: () => ({ ...server.runtime.sessions.stats, ms: dbMs }),
    close: () => server.close(),
  };
}
