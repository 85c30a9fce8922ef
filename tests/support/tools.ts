import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type ToolSpec } from '@zero/runtime/tools/tool';

/** Tools for tests, each counting its executions so exactly-once can be asserted. */
export function testTools() {
  const executions = new Map<string, number>();
  const count = (name: string) => executions.set(name, (executions.get(name) ?? 0) + 1);
  let concurrent = 0;
  let maxConcurrent = 0;
  const tools: ToolSpec<any>[] = [
    defineTool({
      name: 'ledger',
      description: 'Write an entry to the ledger (a side effect made at most once per idempotency key).',
      input: z.object({ entry: z.string(), ms: z.number().int().min(0).max(60_000).default(0) }),
      async execute({ entry, ms }, { idempotencyKey }) {
        count('ledger');
        // The ledger is a file shared by every process of a test (ZERO_TEST_LEDGER), keyed by the call.
        const file = process.env.ZERO_TEST_LEDGER;
        if (!file) throw new Error('ZERO_TEST_LEDGER is not set');
        // Every execution is counted beside it as it starts, one killed before it finished too: how often the
        // side effect was attempted. The ledger itself keeps one line per key, as an idempotent receiver does;
        // "not executed again" is asserted on the executions, never on the ledger.
        appendFileSync(`${file}.executions`, `${idempotencyKey} ${entry}\n`);
        await new Promise((r) => setTimeout(r, ms));
        const seen = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
        if (!seen.some((line) => line.startsWith(`${idempotencyKey} `))) appendFileSync(file, `${idempotencyKey} ${entry}\n`);
        return `recorded ${entry}`;
      },
    }),
    defineTool({
      name: 'echo',
      description: 'Echo the text back.',
      input: z.object({ text: z.string() }),
      async execute({ text }) {
        count('echo');
        return `echo: ${text}`;
      },
    }),
    defineTool({
      name: 'slow',
      description: 'Wait, then answer.',
      input: z.object({ ms: z.number().int().min(0).max(60_000) }),
      async execute({ ms }, { signal }) {
        count('slow');
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        try {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve();
            });
          });
          return `waited ${ms} ms`;
        } finally {
          concurrent--;
        }
      },
    }),
    defineTool({
      name: 'big',
      description: 'Return a lot of text.',
      input: z.object({ chars: z.number().int().positive() }),
      async execute({ chars }) {
        count('big');
        return 'x'.repeat(chars);
      },
    }),
    defineTool({
      name: 'boom',
      description: 'Always fails.',
      input: z.object({}),
      async execute() {
        count('boom');
        throw new Error('the boom tool exploded');
      },
    }),
  ];
  return { tools, executions, maxConcurrent: () => maxConcurrent };
}
