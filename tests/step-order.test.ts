import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEFAULT_MODEL } from '@zero/agent/model/aliases';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { defineTool, toolServices } from '@zero/runtime/tools/tool';
import { requireAgent } from '@zero/agent/definitions/catalog';
import { runLoop } from '@zero/agent/loop/loop';
import type { NewLogRecord } from '@zero/runtime/store/items/log-record';
import { startHarness, type Harness } from './support/harness';

/**
 * A step's `assistant` record (its tool_use blocks) is written before any of
 * its results. A call with side effects must not start before that record is
 * durable (exactly once per call, across a crash); a read-only call may run
 * while it is written. Each result is recorded only after the record.
 */
describe('a step: its tool calls and its assistant record', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  async function step(tool: 'peek' | 'poke' | 'spawn') {
    const log: string[] = [];
    const tools = new ToolRegistry([
      defineTool({ name: 'peek', description: 'Reads.', readOnly: true, input: z.object({}), execute: async () => (log.push('peek ran'), 'seen') }),
      defineTool({ name: 'poke', description: 'Writes.', input: z.object({}), execute: async () => (log.push('poke ran'), 'done') }),
      // As delegate_agent: read-only itself, but the run it starts may have side effects.
      defineTool({ name: 'spawn', description: 'Starts a run.', readOnly: true, startsRuns: true, input: z.object({}), execute: async () => (log.push('spawn ran'), 'answered') }),
      // The order of records is what this tests: the deployment lets tools with side effects run without asking.
    ], { permissions: { side_effects: 'allow' } });
    const rt = h.server.runtime;
    const agent = { ...(await requireAgent(rt.catalog, 'tester')), tools: ['peek', 'poke', 'spawn'] };
    const append = async (record: NewLogRecord) => {
      log.push(`${record.kind} writing`);
      // The assistant record takes a while to become durable, as a slow store would.
      if (record.kind === 'assistant') await new Promise((resolve) => setTimeout(resolve, 150));
      log.push(`${record.kind} durable`);
    };
    h.fake.script({ toolCalls: [{ name: tool, input: {} }] }, { text: 'Done.' });
    const outcome = await runLoop(
      {
        deps: { ...rt, tools },
        run: { sessionId: 'step-order', runId: `run_${tool}`, agent, model: DEFAULT_MODEL, voice: 'neutral', messages: [{ role: 'user', content: 'go' }] },
        ports: { append, services: toolServices(rt) },
      },
      () => undefined,
    );
    expect(outcome.status).toBe('completed');
    return log.slice(0, 5);
  }

  it('a call with side effects starts only once its tool_use is durable', async () => {
    expect(await step('poke')).toEqual(['assistant writing', 'assistant durable', 'poke ran', 'tool_result writing', 'tool_result durable']);
  });

  it('a call that starts another agent\'s run waits like one with side effects', async () => {
    expect(await step('spawn')).toEqual(['assistant writing', 'assistant durable', 'spawn ran', 'tool_result writing', 'tool_result durable']);
  });

  it('a read-only call runs while its tool_use is written; its result is recorded after it', async () => {
    expect(await step('peek')).toEqual(['assistant writing', 'peek ran', 'assistant durable', 'tool_result writing', 'tool_result durable']);
  });
});
