import { FakeAnthropic, type FakeRequest, type FakeTurn } from '../../tests/support/fake-anthropic';
import { benchTools, type Plan } from '../workload';

/**
 * The fake Anthropic server in its own process, so that the CPU time the
 * benchmark measures is the runner's alone. Driven over IPC: `plan` sets the
 * scripted model, `reset` clears requests, cache and timings, `stats` returns
 * them. Timestamps are epoch milliseconds with sub-millisecond precision
 * (performance.timeOrigin + performance.now()), comparable across processes.
 */
const fake = new FakeAnthropic().simulatePromptCache();
let plan: Plan = { toolSteps: 0, callsPerStep: 0, answer: ['ok'] };
let deltas: [string, number][] = [];
let responses: { arrived: number; ended: number }[] = [];
const epoch = (at: number) => performance.timeOrigin + at;

fake.respondWith((request) => respond(plan, request));
fake.onDelta = (at, text) => {
  if (plan.recordDeltas) deltas.push([text, epoch(at)]);
};
fake.onResponseEnd = (request, at) => responses.push({ arrived: epoch(request.at), ended: epoch(at) });

/** The scripted answer to a request, from the plan and where the conversation stands. */
function respond(plan: Plan, request: FakeRequest): FakeTurn {
  const messages = request.body.messages;
  const isUserText = (m: { role: string; content: unknown }) =>
    m.role === 'user' && (typeof m.content === 'string' || (m.content as { type: string }[]).some((b) => b.type === 'text'));
  const turn = messages.filter(isUserText).length;
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && !isUserText(messages[lastUser]!)) lastUser--;
  const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  if (step < plan.toolSteps) {
    return {
      toolCalls: Array.from({ length: plan.callsPerStep }, (_, k) => {
        const tool = benchTools[(turn * plan.callsPerStep + step + k) % benchTools.length]!;
        return { name: tool.name, input: tool.example(turn) };
      }),
    };
  }
  return { text: plan.answer, deltaDelayMs: plan.deltaDelayMs };
}

process.on('message', (message: { id: number; cmd: string; arg?: unknown }) => {
  let result: unknown;
  switch (message.cmd) {
    case 'plan':
      plan = message.arg as Plan;
      break;
    case 'reset':
      fake.reset();
      fake.respondWith((request) => respond(plan, request));
      deltas = [];
      responses = [];
      break;
    case 'stats':
      result = { requests: fake.requests.length, bills: fake.bills, deltas, responses };
      break;
  }
  process.send!({ id: message.id, result });
});

process.on('disconnect', () => void fake.stop().finally(() => process.exit(0)));
await fake.start();
process.send!({ ready: { url: fake.url } });
