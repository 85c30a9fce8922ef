import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AgentDefinition } from '../agent/definition';
import { ToolRegistry } from './registry';
import { defineTool, type ToolContext } from './tool';

const options = { timeoutMs: 1_000, maxOutputChars: 1_000 };

/** A context with just what these tools read: the agent, and a signal. */
const contextFor = (id: string, tools: string[]) => ({ agent: { id, tools } as AgentDefinition, signal: new AbortController().signal }) as ToolContext;

describe('ToolRegistry.execute', () => {
  const runs: string[] = [];
  const registry = new ToolRegistry([
    defineTool({ name: 'remember', description: 'Remember a word.', input: z.object({ word: z.string() }), execute: async ({ word }) => (runs.push(word), `remembered ${word}`) }),
    defineTool({ name: 'other', description: 'Another tool.', input: z.object({}), execute: async () => 'other' }),
  ]);

  it('refuses a tool the agent was not granted, names it, and never runs it', async () => {
    const result = await registry.execute('remember', { word: 'secret' }, contextFor('reader', ['other']), options);
    expect(result).toEqual({ is_error: true, truncated: false, content: 'Tool "remember" is not granted to agent "reader"; it was not run. Its tools: other.' });
    expect(runs).toEqual([]);
  });

  it('refuses before looking at the input, and lists only the agent\'s own tools', async () => {
    const result = await registry.execute('remember', { word: 7 }, contextFor('nobody', []), options);
    expect(result.content).toBe('Tool "remember" is not granted to agent "nobody"; it was not run. Its tools: none.');
    expect((await registry.execute('missing', {}, contextFor('writer', ['missing', 'other']), options)).content).toBe('Unknown tool "missing". Available tools: other.');
  });

  it('runs a granted tool', async () => {
    expect(await registry.execute('remember', { word: 'ok' }, contextFor('writer', ['remember']), options)).toEqual({ is_error: false, truncated: false, content: 'remembered ok' });
    expect(runs).toEqual(['ok']);
  });
});

describe('ToolRegistry.definitions', () => {
  it("sends a tool's input as JSON Schema, converted when first asked for and reused after", () => {
    const registry = new ToolRegistry([
      defineTool({ name: 'remember', description: 'Remember a word.', input: z.object({ word: z.string().describe('the word') }), execute: async () => 'ok' }),
    ]);
    type Sent = { name: string; input_schema: Record<string, unknown> };
    const sent = registry.definitions(['remember', 'missing']) as Sent[];
    expect(sent).toEqual([{
      name: 'remember',
      description: 'Remember a word.',
      input_schema: { type: 'object', properties: { word: { type: 'string', description: 'the word' } }, required: ['word'] },
    }]);
    expect((registry.definitions(['remember']) as Sent[])[0]?.input_schema).toBe(sent[0]?.input_schema);
  });
});
