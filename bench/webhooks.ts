import { rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { signSha256, type StoreConfig } from '@zero/core';
import type { RunnerEnv } from './runners/runner';
import { forkChild } from './support/child';
import { ms, percentile, table } from './support/stats';
import { AGENT_ID, BENCH_ZERO_KEY, systemPromptBlocks, writeAgentDir } from './workload';

/**
 * `npx tsx bench/webhooks.ts`: webhook accept latency against the local stack
 * — Zero's server as `npm start` runs it (in-process run queue, so the
 * investigations run in the same process while deliveries arrive), dynalite
 * on disk and s3rver in another process, the fake Anthropic server in a third.
 * Latency is from the request's start to the 202, as the sender sees it.
 * WEBHOOK_BENCH_N sets the number of deliveries per phase (default 300).
 */
const SECRET = 'bench-webhook-secret-0123456789abcdef';
const N = Number(process.env.WEBHOOK_BENCH_N ?? 300);
const CONCURRENCY = 16;

async function main() {
  process.env.NODE_NO_WARNINGS = '1';
  // The server child inherits the environment: the hook's secret reference resolves there.
  process.env.ZERO_WEBHOOK_SECRET_BENCH = SECRET;
  const root = import.meta.dirname;
  const fake = await forkChild<{ url: string }>(join(root, 'processes', 'fake-model.ts'));
  const stores = await forkChild<{ store: StoreConfig }>(join(root, 'processes', 'stores.ts'));
  const agentsDir = await writeAgentDir();
  const env: RunnerEnv = { fakeUrl: fake.ready.url, store: stores.ready.store, agentsDir, system: systemPromptBlocks() };
  const server = await forkChild<{ url: string }>(join(root, 'processes', 'zero-server.ts'), [], { ZERO_BENCH_ENV: JSON.stringify(env) });
  const url = server.ready.url;
  const admin = { authorization: `Bearer ${BENCH_ZERO_KEY}`, 'content-type': 'application/json' };
  try {
    const created = await fetch(`${url}/api/v2/hooks/bench`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        source: 'github',
        secret_ref: 'ZERO_WEBHOOK_SECRET_BENCH',
        events: ['pull_request.opened'],
        agent_id: AGENT_ID,
        project: '{{repository.full_name}}',
        prompt: 'Review pull request #{{pull_request.number}} "{{pull_request.title}}" by {{pull_request.user.login}}',
        owner: { user_id: 'bench' },
      }),
    });
    if (created.status !== 201) throw new Error(`could not create the hook: ${created.status} ${await created.text()}`);

    let n = 0;
    // A realistic payload size: GitHub's pull_request.opened bodies are some 20–30 KB.
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(800);
    const deliver = async () => {
      const i = ++n;
      const body = JSON.stringify({
        action: 'opened',
        number: i,
        pull_request: { number: i, title: `Change ${i}`, body: filler, user: { login: 'octocat' } },
        repository: { full_name: 'acme/shop' },
      });
      const t0 = performance.now();
      const response = await fetch(`${url}/api/v2/webhooks/bench`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': `bench-${process.pid}-${i}`,
          'x-hub-signature-256': signSha256(SECRET, body),
        },
        body,
      });
      const json = (await response.json()) as { session_id?: string };
      const elapsed = performance.now() - t0;
      if (response.status !== 202) throw new Error(`delivery ${i} answered ${response.status}: ${JSON.stringify(json)}`);
      return { elapsed, sessionId: json.session_id! };
    };
    const waitFinished = async (sessionId: string) => {
      const t0 = performance.now();
      for (;;) {
        const r = await fetch(`${url}/api/v2/sessions/${sessionId}/summary`, { headers: admin });
        const { summary } = (await r.json()) as { summary?: { status: string } };
        if (summary && summary.status !== 'accepted') return { status: summary.status, waitedMs: performance.now() - t0 };
        if (performance.now() - t0 > 300_000) throw new Error(`session ${sessionId} did not finish`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    for (let i = 0; i < 20; i++) await deliver();
    const sequential: number[] = [];
    let last = '';
    for (let i = 0; i < N; i++) {
      const { elapsed, sessionId } = await deliver();
      sequential.push(elapsed);
      last = sessionId;
    }
    const drainSequential = await waitFinished(last);

    const concurrent: number[] = [];
    const t0 = performance.now();
    let remaining = N;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (remaining-- > 0) {
          const { elapsed, sessionId } = await deliver();
          concurrent.push(elapsed);
          last = sessionId;
        }
      }),
    );
    const wall = performance.now() - t0;
    const drainConcurrent = await waitFinished(last);

    const row = (name: string, samples: number[]) => [name, samples.length, ms(percentile(samples, 50)), ms(percentile(samples, 99)), ms(Math.max(...samples))];
    console.log(`webhook accept latency — ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}`);
    console.log(
      table('POST /api/v2/webhooks/:hook_id → 202 (ms)', ['phase', 'deliveries', 'p50', 'p99', 'max'], [
        row('one at a time', sequential),
        row(`${CONCURRENCY} in flight`, concurrent),
      ]),
    );
    console.log(`\n${CONCURRENCY} in flight: ${((N / wall) * 1000).toFixed(0)} deliveries/s accepted; every run ends with a report (last: ${drainConcurrent.status}).`);
    console.log(`Last run finished ${ms(drainSequential.waitedMs, 0)} ms after the sequential phase, ${ms(drainConcurrent.waitedMs, 0)} ms after the concurrent one.`);
  } finally {
    await server.stop();
    await stores.stop();
    await fake.stop();
    await rm(agentsDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
