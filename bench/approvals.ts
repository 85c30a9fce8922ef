/**
 * Time from a decision to the run's next event: an editor POSTs an approval
 * for a waiting call while the session's owner follows its live events from
 * another connection; measured from the request's start to the resumed run's
 * `start` event on that stream (and to the decision's `200`). The server, the
 * fake model, dynalite and s3rver run as in the end-to-end tests.
 * Run with `npx tsx bench/approvals.ts` (`APPROVAL_BENCH_N` decisions, default 40).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV, getJson, postJson, startHarness } from '../tests/support/harness';
import { chatStream, readSse } from '../tests/support/sse';
import { ms, percentile, table } from './support/stats';

const n = Number(process.env.APPROVAL_BENCH_N ?? 40);
const dir = await mkdtemp(join(tmpdir(), 'zero-approval-bench-'));
process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
const h = await startHarness();
const editor = await h.userHeaders('editor', 'Editor');
const json = (headers: Record<string, string>) => ({ 'content-type': 'application/json', ...headers });

const toEvent: number[] = [];
const toResponse: number[] = [];
for (let i = 0; i < n + 3; i++) {
  const { json: created } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
  const id = created.session.session_id as string;
  await fetch(`${h.url}/api/v2/sessions/${id}/permissions`, { method: 'PUT', headers: json(DEV), body: JSON.stringify({ permissions: { ledger: 'ask' } }) });
  await fetch(`${h.url}/api/v2/sessions/${id}/members/editor`, { method: 'PUT', headers: json(DEV), body: JSON.stringify({ role: 'editor' }) });
  h.fake.script({ toolCalls: [{ name: 'ledger', input: { entry: `bench-${i}` } }] }, { text: 'Done.' });
  const { events } = await chatStream(h.url, { session_id: id, message: 'Write it down.' });
  const asked = events.find((e) => e.type === 'confirmation_required') as { id: string } | undefined;
  if (!asked) throw new Error(`the call did not wait: ${JSON.stringify(events)}`);
  const callId = asked.id;
  const { json: detail } = await getJson(`${h.url}/api/v2/sessions/${id}`);

  const follow = new AbortController();
  const stream = await fetch(`${h.url}/api/v2/sessions/${id}/events?after=${detail.last_event_id}`, { headers: DEV, signal: follow.signal });
  const events$ = readSse(stream, follow.signal);
  const started = performance.now();
  const decided = fetch(`${h.url}/api/v2/sessions/${id}/approvals/${callId}`, { method: 'POST', headers: json(editor), body: JSON.stringify({ decision: 'allow' }) }).then((r) => {
    if (r.status !== 200) throw new Error(`decision answered ${r.status}`);
    return performance.now() - started;
  });
  let next = Number.NaN;
  for await (const event of events$) {
    if (event.type === 'start') next = performance.now() - started;
    // The run's end: the next session's script is not taken by this one's last step.
    if (event.type === 'done') break;
  }
  const responded = await decided;
  follow.abort();
  // The first few warm the server up.
  if (i >= 3) {
    toEvent.push(next);
    toResponse.push(responded);
  }
  h.fake.reset();
}

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${n} decisions`);
console.log(
  table('decision → the run goes on (ms)', ['measure', 'p50', 'p99'], [
    ['POST approval → 200', ms(percentile(toResponse, 50)), ms(percentile(toResponse, 99))],
    ['POST approval → resumed run\'s `start` on a member\'s events stream', ms(percentile(toEvent, 50)), ms(percentile(toEvent, 99))],
  ]),
);
// Let the last run's job settle before the servers stop.
await new Promise((resolve) => setTimeout(resolve, 300));
await h.close();
await rm(dir, { recursive: true, force: true });
