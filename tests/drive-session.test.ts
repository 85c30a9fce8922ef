import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness';
import type { Runtime } from '../functions/create-runtime';
import { openSession } from '@zero/runtime/sessions/open-session';
import { startChat, type IdentifiedEvent } from '@zero/runtime/sessions/start-chat';

/**
 * A run's readers wait for its last event. Whatever part of the store fails,
 * and whenever, the run that answers a message ends with exactly one `done`
 * (the failures are injected into the real stores, over dynalite).
 */
describe('done is always the last event, whatever fails', () => {
  let h: Harness;
  let rt: Runtime;
  beforeAll(async () => {
    h = await startHarness();
    rt = h.server.runtime;
  });
  afterAll(() => h.close());

  const injected = () => new Error('injected storage failure');
  /** Makes `method` of `target` fail on the calls `when` picks, for the duration of `body`. */
  async function failing<T extends object, K extends keyof T>(target: T, method: K, when: (...args: any[]) => boolean, body: () => Promise<void>) {
    const original = target[method] as (...args: any[]) => Promise<unknown>;
    target[method] = (async (...args: any[]) => {
      if (when(...args)) throw injected();
      return original.apply(target, args);
    }) as T[K];
    try {
      await body();
    } finally {
      target[method] = original as T[K];
    }
  }
  /** True from the `n`th call on. */
  const nth = (n: number) => {
    let calls = 0;
    return () => ++calls >= n;
  };

  const cases: [string, () => (body: () => Promise<void>) => Promise<void>][] = [
    ['taking the lease', () => (body) => failing(rt.leases, 'acquire', () => true, body)],
    ['reading the log', () => (body) => failing(rt.sessions, 'readLog', () => true, body)],
    ['reserving the first event position', () => (body) => failing(rt.leases, 'allocate', (_lease, log) => log === 'event', body)],
    [
      'reserving a later event position',
      () => {
        const later = nth(2);
        return (body) => failing(rt.leases, 'allocate', (_lease, log) => log === 'event' && later(), body);
      },
    ],
    ['reserving log positions', () => (body) => failing(rt.leases, 'allocate', (_lease, log) => log === 'log', body)],
    ['recording the user message', () => (body) => failing(rt.sessions, 'append', (_id, _seq, record) => record.kind === 'user_message', body)],
    ['recording the model turn', () => (body) => failing(rt.sessions, 'append', (_id, _seq, record) => record.kind === 'assistant', body)],
    ['recording the tool result', () => (body) => failing(rt.sessions, 'append', (_id, _seq, record) => record.kind === 'tool_result', body)],
    ['recording the run end', () => (body) => failing(rt.sessions, 'append', (_id, _seq, record) => record.kind === 'run_end', body)],
    ['writing the event log', () => (body) => failing(rt.sessions, 'putEvents', () => true, body)],
    ['removing the message from the inbox', () => (body) => failing(rt.sessions, 'removeFromInbox', () => true, body)],
  ];

  for (const [what, inject] of cases) {
    it(`when ${what} fails`, async () => {
      const user = { id: 'dev', name: 'Developer' };
      const session = await openSession(rt, user, { title: what, agent_id: 'tester' });
      h.fake.reset();
      h.fake.script({ text: 'On it. ', toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, { text: 'Done.' });
      const events: IdentifiedEvent[] = [];
      await inject()(async () => {
        const run = await startChat(rt, { session_id: session.session_id, message: `fail at ${what}` }, user);
        for await (const event of run.events(AbortSignal.timeout(10_000))) events.push(event);
        await run.finished;
      });
      expect(events.at(-1)?.type).toBe('done');
      expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
    });
  }
});
