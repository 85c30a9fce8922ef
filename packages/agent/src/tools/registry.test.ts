import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AgentDefinition } from '../definitions/definition';
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
    // Grants are what this block tests: the deployment lets tools with side effects run without asking.
  ], { permissions: { side_effects: 'allow' } });

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

describe('ToolRegistry.execute: the permission policy', () => {
  const runs: string[] = [];
  const tools = [
    defineTool({ name: 'save', description: 'Save a note.', input: z.object({ path: z.string() }), policySubject: (input) => input.path, execute: async ({ path }) => (runs.push(path), `saved ${path}`) }),
    defineTool({ name: 'look', description: 'Look.', readOnly: true, input: z.object({}), execute: async () => (runs.push('look'), 'looked') }),
  ];
  const registry = new ToolRegistry(tools, { permissions: { side_effects: 'ask', rules: { 'save(public/**)': 'allow', 'save(secret/**)': 'deny' } } });
  const context = (extra: Partial<ToolContext> = {}) => ({ ...contextFor('scribe', ['save', 'look']), toolCallId: 'toolu_1', ...extra }) as ToolContext;

  it('never runs a denied call, and says which policy denied it', async () => {
    const result = await registry.execute('save', { path: 'secret/keys.txt' }, context(), options);
    expect(result).toEqual({ is_error: true, truncated: false, content: 'Tool "save" was not run: the permission policy denies it (ZERO_PERMISSIONS rule "save(secret/**)").' });
    expect(runs).toEqual([]);
  });

  it('refuses a call the policy asks about when no one can be asked, naming the policy', async () => {
    const result = await registry.execute('save', { path: 'drafts/a.txt' }, context(), options);
    expect(result.is_error).toBe(true);
    expect(result.content).toBe(
      'Tool "save" was not run: the permission policy asks a person to approve it first (the deployment default for tools with side effects), ' +
        'and this deployment cannot collect approvals yet. Tell the user what you meant to do; a session owner can change the policy.',
    );
    expect(runs).toEqual([]);
  });

  it('asks through requestApproval: an approval runs the call, a denial returns the decider\'s message', async () => {
    const asked: unknown[] = [];
    const approve = context({ requestApproval: async (request) => (asked.push(request), { decision: 'allow' }) });
    expect(await registry.execute('save', { path: 'drafts/a.txt' }, approve, options)).toMatchObject({ is_error: false, content: 'saved drafts/a.txt' });
    expect(asked).toEqual([{ toolCallId: 'toolu_1', name: 'save', input: { path: 'drafts/a.txt' }, policy: 'the deployment default for tools with side effects' }]);
    const deny = context({ requestApproval: async () => ({ decision: 'deny', message: 'not today', by: 'Alice' }) });
    expect((await registry.execute('save', { path: 'drafts/b.txt' }, deny, options)).content).toBe('Tool "save" was not run: Alice denied it: not today.');
    expect(runs).toEqual(['drafts/a.txt']);
  });

  it('runs allowed calls: read-only tools, and input rules that allow', async () => {
    runs.length = 0;
    expect((await registry.execute('look', {}, context(), options)).content).toBe('looked');
    expect((await registry.execute('save', { path: 'public/x.txt' }, context(), options)).content).toBe('saved public/x.txt');
    expect(runs).toEqual(['look', 'public/x.txt']);
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
