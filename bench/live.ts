/**
 * Issue 4 and 5 figures, one command: `npx tsx bench/live.ts`.
 *
 * 1. Live view: a run on one Zero instance streams text deltas; a second
 *    member watches the session's events on the same instance (events come
 *    from the run's recorder) and on another instance (events come from the
 *    DynamoDB event log, polled). Lag = fake model writes a delta → the
 *    member's SSE stream shows it. Plus DynamoDB writes per step.
 * 2. Resume: a Zero server process is killed with SIGKILL mid tool call and
 *    started again; time from the restart to the first new event of the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import { startServer, type RunningServer } from '../local/server';
import { startLocalStack, syncAgents } from '../local/stack';
import { startChildServer } from '../tests/support/child';
import { FakeAnthropic } from '../tests/support/fake-anthropic';
import { DEV, DEV_KEY, TEST_API_KEY } from '../tests/support/harness';
import { chatUntil, readSse } from '../tests/support/sse';
import { testTools } from '../tests/support/tools';
import { median, ms, percentile, table } from './support/stats';

process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
const root = join(import.meta.dirname, '..');
const fake = await new FakeAnthropic().start();
const stack = await startLocalStack();
await syncAgents(stack.store, join(root, 'agents'));
await syncAgents(stack.store, join(root, 'tests', 'fixtures', 'agents'));
const config = {
  store: stack.store,
  anthropic: { apiKey: TEST_API_KEY, baseURL: fake.url, maxRetries: 0 },
  limits: DEFAULT_LIMITS,
  tools: testTools().tools,
  catalogRevalidateMs: 60_000,
  leaseTtlMs: 1000,
  auth: { staticKeys: [{ key: DEV_KEY, user: { id: 'dev', name: 'Developer' } }] },
};
const a = await startServer(config);
const b = await startServer(config);

async function post(server: RunningServer, path: string, body: unknown) {
  const response = await fetch(`${server.url}/api/v2${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...DEV }, body: JSON.stringify(body) });
  return response.json() as Promise<any>;
}

/** Watches a session on `server` and records when each delta arrived, until `done`. */
/** The id of the session's last event: watchers start after it. */
async function lastEventId(url: string, sessionId: string): Promise<string> {
  const response = await fetch(`${url}/api/v2/sessions/${sessionId}`, { headers: DEV });
  const body = (await response.json()) as { last_event_id?: string | null };
  return body.last_event_id ?? '0';
}

function watch(server: RunningServer, sessionId: string, arrivals: Map<string, number>) {
  const controller = new AbortController();
  const finished = (async () => {
    const after = await lastEventId(server.url, sessionId);
    const response = await fetch(`${server.url}/api/v2/sessions/${sessionId}/events?after=${after}`, { headers: DEV, signal: controller.signal });
    for await (const event of readSse(response)) {
      if (event.type === 'text') arrivals.set(event.delta, performance.now());
      if (event.type === 'done') break;
    }
    controller.abort();
  })();
  return finished;
}

// --- 1. live view -----------------------------------------------------------------------------
const DELTAS = 200;
const sent = new Map<string, number>();
fake.onDelta = (at, text) => sent.set(text, at);
const local = new Map<string, number>();
const remote = new Map<string, number>();
const rows: (string | number)[][] = [];
const session = (await post(a, '/sessions', { title: 'live view', agent_id: 'tester' })).session.session_id as string;
const stepsBefore = { writes: a.runtime.sessions.stats.writes, bytes: a.runtime.sessions.stats.bytes };
for (let round = 0; round < 3; round++) {
  const watchers = [watch(a, session, local), watch(b, session, remote)];
  await new Promise((r) => setTimeout(r, 200));
  fake.script(
    { toolCalls: [{ name: 'echo', input: { text: 'x' } }] },
    { text: Array.from({ length: DELTAS }, (_, i) => `r${round}d${i} `), deltaDelayMs: 5 },
  );
  await post(a, '/chat', { session_id: session, message: `round ${round}` });
  await Promise.all(watchers);
}
const writes = a.runtime.sessions.stats.writes - stepsBefore.writes;
const bytes = a.runtime.sessions.stats.bytes - stepsBefore.bytes;
const steps = 3 * 2;
for (const [label, arrivals] of [
  ['same instance (recorder)', local],
  ['other instance (event log)', remote],
] as const) {
  const lags = [...arrivals].filter(([text]) => sent.has(text)).map(([text, at]) => at - sent.get(text)!);
  rows.push([label, lags.length, ms(median(lags)), ms(percentile(lags, 99)), ms(Math.max(...lags))]);
}
console.log(table(`Live view: fake model writes a delta → a second member's stream shows it (ms; ${3 * DELTAS} deltas, 5 ms apart)`, ['watcher', 'deltas', 'p50', 'p99', 'max'], rows));
console.log(table('DynamoDB writes with text batching (250 ms flush)', ['runs', 'steps', 'writes', 'writes/step', 'bytes/step'], [[3, steps, writes, ms(writes / steps, 1), ms(bytes / steps, 0)]]));

// --- 2. resume after SIGKILL -----------------------------------------------------------------------
const resume: (string | number)[][] = [];
const dir = await mkdtemp(join(tmpdir(), 'zero-bench-resume-'));
process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
const childConfig = { ...config, tools: undefined };
for (const waitForExpiry of [false, true]) {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    fake.reset();
    fake.onDelta = undefined;
    fake.script({ toolCalls: [{ name: 'ledger', input: { entry: `e${i}`, ms: 3000 } }] }, { text: 'done' });
    const first = await startChildServer(childConfig);
    const { sessionId } = await chatUntil(first.url, { agent_id: 'tester', message: 'work' }, (e) => e.type === 'tool_call');
    await new Promise((r) => setTimeout(r, 100));
    await first.kill();
    if (waitForExpiry) await new Promise((r) => setTimeout(r, 1100));
    const restarted = performance.now();
    const second = await startChildServer(childConfig);
    const controller = new AbortController();
    const after = await lastEventId(second.url, sessionId);
    const events = await fetch(`${second.url}/api/v2/sessions/${sessionId}/events?after=${after}`, { headers: DEV, signal: controller.signal });
    for await (const event of readSse(events)) {
      if (event.type === 'start') {
        samples.push(performance.now() - restarted);
        break;
      }
    }
    controller.abort();
    await second.kill();
  }
  resume.push([waitForExpiry ? 'lease already expired' : 'restarted at once (lease TTL 1 s)', samples.length, ms(median(samples), 0), ms(Math.max(...samples), 0)]);
}
console.log(table('Resume after SIGKILL mid tool call: restart → first new event of the run (ms; includes the new process starting)', ['case', 'runs', 'p50', 'max'], resume));

await a.close();
await b.close();
await fake.stop();
await stack.stop();
await rm(dir, { recursive: true, force: true });
process.exit(0);
