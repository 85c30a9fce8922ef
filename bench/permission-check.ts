/**
 * What the permission check adds to a tool call: the policy alone, and with
 * the session's overrides read from the table (one GetItem per call, against
 * dynalite). Run with `npx tsx bench/permission-check.ts`.
 */
import * as z from 'zod';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { SessionStore } from '@zero/runtime/store/session-store';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { createDynamoClient, createS3Client } from '@zero/runtime/store/clients';
import { defineTool, type ToolContext } from '@zero/runtime/tools/tool';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import { startLocalStack } from '../local/stack';

const stack = await startLocalStack();
const sessions = new SessionStore(createDynamoClient(stack.store), stack.store.table, new ArtifactStore(createS3Client(stack.store), stack.store.bucket));
const tool = defineTool({ name: 'noop', description: 'n', input: z.object({}), execute: async () => 'ok' });
const registry = new ToolRegistry([tool], { permissions: { side_effects: 'allow' } });
const agent = { id: 'a', tools: ['noop'] } as AgentDefinition;
await sessions.putPermissions('bench-session', { permissions: { 'noop(x/**)': 'deny' }, updated_by: 'u', updated_at: new Date().toISOString() });
const run = async (withStore: boolean) => {
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const context = { agent, sessionId: 'bench-session', toolCallId: 't', signal: new AbortController().signal, ...(withStore ? { sessions } : {}) } as unknown as ToolContext;
    const t = performance.now();
    await registry.execute('noop', {}, context, { timeoutMs: 1000, maxOutputChars: 1000 });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[150]!.toFixed(2), p99: times[297]!.toFixed(2) };
};
await run(true);
console.log('policy without overrides read (ms)', await run(false));
console.log('policy with the overrides read from dynalite (ms)', await run(true));
await stack.stop();
