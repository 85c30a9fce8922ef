/**
 * What idle live-view streams cost (issue 12, item 10): `npx tsx bench/idle-watchers.ts [streams] [seconds]`.
 *
 * A Zero server in its own process; DynamoDB (dynalite) and the SSE clients
 * in this one. N streams follow one session where nothing happens
 * (`GET /sessions/:id/events`); after they settle, the CPU time of the
 * server process and of this process (the store answering the polls, plus
 * the idle clients) is measured over a window, and the DynamoDB requests the
 * server made in it are counted (through a counting proxy): CPU time moves
 * with the machine's load, the request count does not.
 */
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import { startLocalStack, syncAgents } from '../local/stack';
import { startChildServer } from '../tests/support/child';
import { DEV, DEV_KEY } from '../tests/support/harness';
import { ms, table } from './support/stats';

process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
const STREAMS = Number(process.argv[2] ?? 200);
const WINDOW_S = Number(process.argv[3] ?? 10);
const SETTLE_MS = 5000;

/** User + system CPU time of a process, in ms, from /proc (Linux). */
async function processCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Forwards every request to DynamoDB and counts them. */
async function countingProxy(target: string) {
  let requests = 0;
  const { hostname, port } = new URL(target);
  const proxy = createServer((incoming, outgoing) => {
    requests++;
    const forwarded = request({ hostname, port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, requests: () => requests, close: () => proxy.close() };
}

const stack = await startLocalStack();
await syncAgents(stack.store, join(import.meta.dirname, '..', 'agents'));
const dynamo = await countingProxy(stack.store.dynamoEndpoint!);
const server = await startChildServer({
  store: { ...stack.store, dynamoEndpoint: dynamo.url },
  limits: DEFAULT_LIMITS,
  // Every stream is the same user's here: lift the per-user cap so all of them are admitted.
  maxStreamsPerUser: STREAMS,
  auth: { staticKeys: [{ key: DEV_KEY, user: { id: 'dev', name: 'Developer' } }] },
} as never);

const created = await fetch(`${server.url}/api/v2/sessions`, { method: 'POST', headers: { ...DEV, 'content-type': 'application/json' }, body: '{"title":"idle"}' });
const sessionId = ((await created.json()) as { session: { session_id: string } }).session.session_id;

const controller = new AbortController();
let open = 0;
const refused: number[] = [];
await Promise.all(
  Array.from({ length: STREAMS }, async () => {
    const response = await fetch(`${server.url}/api/v2/sessions/${sessionId}/events`, { headers: DEV, signal: controller.signal });
    if (response.status !== 200) return refused.push(response.status);
    open++;
    // Drain the padding and keep-alives; nothing else comes.
    void response.body!.pipeTo(new WritableStream()).catch(() => undefined);
  }),
);
await new Promise((r) => setTimeout(r, SETTLE_MS));

const serverBefore = await processCpuMs(server.process.pid!);
const ownBefore = ownCpuMs();
const requestsBefore = dynamo.requests();
await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
const serverCpu = (await processCpuMs(server.process.pid!)) - serverBefore;
const ownCpu = ownCpuMs() - ownBefore;
const requests = dynamo.requests() - requestsBefore;

console.log(
  table(
    `${open} idle streams of one session (${refused.length} refused), CPU over ${WINDOW_S} s after ${SETTLE_MS / 1000} s to settle`,
    ['process', 'CPU s', 'CPU s per 10 s'],
    [
      ['Zero server', ms(serverCpu / 1000), ms((serverCpu / 1000) * (10 / WINDOW_S))],
      ['store (dynalite) + clients', ms(ownCpu / 1000), ms((ownCpu / 1000) * (10 / WINDOW_S))],
      ['total', ms((serverCpu + ownCpu) / 1000), ms(((serverCpu + ownCpu) / 1000) * (10 / WINDOW_S))],
    ],
  ),
);
console.log(`DynamoDB requests of the server in the window: ${requests} (${ms(requests / WINDOW_S, 1)}/s; load average ${loadavg()[0]!.toFixed(1)})`);

controller.abort();
dynamo.close();
await server.kill();
await stack.stop();
process.exit(0);
