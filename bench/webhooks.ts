import { rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import type { StoreConfig } from '@zero/runtime/store/clients';
import type { RunnerEnv } from './runners/runner';
import { forkChild } from './support/child';
import { ms, percentile, table } from './support/stats';
import { AGENT_ID, BENCH_ZERO_KEY, systemPromptBlocks, writeAgentDir } from './workload';

/**
 * `npx tsx bench/webhooks.ts`: webhook accept latency against the local stack
 * — Zero's server in its own process, dynalite on disk and s3rver in another,
 * the fake Anthropic server in a third. Latency is from the request's start
 * to the 202, as the sender sees it. Two set-ups: jobs only queued (as in
 * AWS, where the worker runs the investigations in another function), and
 * `npm start`'s in-process queue, where every investigation runs in the
 * server's process while deliveries keep arriving.
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
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  try {
    for (const mode of ['record', 'in-process'] as const) {
      const server = await forkChild<{ url: string }>(join(root, 'processes', 'webhook-server.ts'), [], {
        ZERO_BENCH_ENV: JSON.stringify(env),
        ZERO_BENCH_QUEUE: mode,
      });
      try {
        const result = await measure(server.ready.url, mode);
        const label = mode === 'record' ? 'jobs queued (AWS)' : 'runs in-process';
        rows.push(row(`${label}, one at a time`, result.sequential), row(`${label}, ${CONCURRENCY} in flight`, result.concurrent));
        notes.push(`${label}: ${result.perSecond.toFixed(0)} deliveries/s accepted with ${CONCURRENCY} in flight${result.drained ? `; the last investigation finished ${ms(result.drained, 0)} ms after the last 202` : `; ${await server.call('jobs')} jobs queued`}.`);
      } finally {
        await server.stop();
      }
    }
    console.log(`webhook accept latency — ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}`);
    console.log(table('POST /api/v2/webhooks/:hook_id → 202 (ms)', ['set-up, phase', 'deliveries', 'p50', 'p99', 'max'], rows));
    console.log(`\n${notes.join('\n')}`);
  } finally {
    await stores.stop();
    await fake.stop();
    await rm(agentsDir, { recursive: true, force: true });
  }
}

const row = (name: string, samples: number[]) => [name, samples.length, ms(percentile(samples, 50)), ms(percentile(samples, 99)), ms(Math.max(...samples))];

async function measure(url: string, mode: 'record' | 'in-process') {
  const admin = { authorization: `Bearer ${BENCH_ZERO_KEY}`, 'content-type': 'application/json' };
  // The second set-up replaces the first one's hook (same bucket).
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
  if (created.status >= 300) throw new Error(`could not create the hook: ${created.status} ${await created.text()}`);

  let n = 0;
  // A realistic payload size: GitHub's pull_request.opened bodies are some 20–30 KB.
  const filler = 'Lorem ipsum dolor sit amet. '.repeat(800);
  const deliver = async () => {
    const i = ++n;
    const body = JSON.stringify({
      action: 'opened',
      number: i,
      // Each body differs, as GitHub's do (the set-ups share a store, and a body seen before is a replay).
      pull_request: { number: i, title: `Change ${i} (${mode})`, body: filler, user: { login: 'octocat' } },
      repository: { full_name: 'acme/shop' },
    });
    const t0 = performance.now();
    const response = await fetch(`${url}/api/v2/webhooks/bench`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': `bench-${mode}-${i}`,
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
  if (mode === 'in-process') await waitFinished(last);

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

  return {
    sequential,
    concurrent,
    perSecond: (N / wall) * 1000,
    drained: mode === 'in-process' ? (await waitFinished(last)).waitedMs : undefined,
  };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
