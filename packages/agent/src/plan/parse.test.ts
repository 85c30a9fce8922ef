import { describe, expect, it } from 'vitest';
import { parsePlan, planFormatOf } from './parse';
import { planPrompt } from './prompt';

describe('plan files', () => {
  it('reads YAML, JSON and Markdown into the same plan', () => {
    const yaml = parsePlan('goal: Find vulnerable dependencies\ncontext: A Node shop\nsteps:\n  - Read package.json\n  - Check advisories\n', 'yaml');
    const json = parsePlan('{"goal": "Find vulnerable dependencies", "context": "A Node shop", "steps": ["Read package.json", "Check advisories"]}', 'json');
    const markdown = parsePlan('# Task\n\n## Goal\n\nFind vulnerable dependencies\n\n## Context\n\nA Node shop\n\n## Steps\n\n1. Read package.json\n2. Check\n   advisories\n', 'markdown');
    const plan = { goal: 'Find vulnerable dependencies', context: 'A Node shop', steps: ['Read package.json', 'Check advisories'] };
    expect(yaml).toEqual({ ok: true, plan });
    expect(json).toEqual({ ok: true, plan });
    expect(markdown).toEqual({ ok: true, plan });
  });

  it("reads XZatoma's plans: named facts as context, instructions as the steps", () => {
    const yaml = parsePlan('goal: "Generate API documentation"\ncontext:\n directory: "src/api/"\ninstructions:\n - List all API endpoint files\n - Extract function signatures\n', 'yaml');
    const json = parsePlan('{\n "goal": "Generate API documentation",\n "context": {\n  "directory": "src/api/"\n },\n "instructions": [\n  "List all API endpoint files",\n  "Extract function signatures"\n ]\n}', 'json');
    const plan = { goal: 'Generate API documentation', context: { directory: 'src/api/' }, instructions: ['List all API endpoint files', 'Extract function signatures'] };
    expect(yaml).toEqual({ ok: true, plan });
    expect(json).toEqual({ ok: true, plan });
    expect(planPrompt(plan)).toBe(
      'You are assisting with the following task:\n\nGOAL:\nGenerate API documentation\n\nCONTEXT:\n- Directory: src/api/\n\nINSTRUCTIONS (follow as guidance):\n1. List all API endpoint files\n2. Extract function signatures\n\n' +
        'PROGRESS: call plan_progress with a step\'s number and "started" when you begin it, then "done" or "failed" when it ends.',
    );
    expect(parsePlan('goal: g\nsteps: [a]\ninstructions: [b]\n', 'yaml')).toMatchObject({ ok: false, error: { field: 'instructions', line: 3, message: expect.stringContaining('not both') } });
    expect(parsePlan('goal: g\ncontext:\n  nested: {deep: 1}\n', 'yaml')).toMatchObject({ ok: false, error: { field: expect.stringMatching(/^context/) } });
  });

  it('becomes the prompt of the CLI-agent design', () => {
    expect(planPrompt({ goal: 'Audit', context: ['Node 20', 'Express 4'], steps: ['Read', 'Report'] })).toBe(
      'You are assisting with the following task:\n\nGOAL:\nAudit\n\nCONTEXT:\n- Node 20\n- Express 4\n\nINSTRUCTIONS (follow as guidance):\n1. Read\n2. Report\n\n' +
        'PROGRESS: call plan_progress with a step\'s number and "started" when you begin it, then "done" or "failed" when it ends.',
    );
    // A plan without steps has nothing to report progress on.
    expect(planPrompt({ goal: 'Audit' })).toBe('You are assisting with the following task:\n\nGOAL:\nAudit');
  });

  it('names the field and the line of what is wrong', () => {
    expect(parsePlan('context: x\nsteps:\n  - one\n', 'yaml')).toEqual({ ok: false, error: { field: 'goal', line: 1, message: 'is required' } });
    expect(parsePlan('goal: g\nsteps:\n  - one\n  - 42\n', 'yaml')).toMatchObject({ ok: false, error: { field: 'steps.1', line: 4 } });
    expect(parsePlan('goal: g\nowner: me\n', 'yaml')).toMatchObject({ ok: false, error: { field: 'owner', line: 1, message: expect.stringContaining('unknown field "owner"') } });
    expect(parsePlan('goal: [unclosed\n', 'yaml')).toMatchObject({ ok: false, error: { field: 'plan', line: expect.any(Number) } });
    expect(parsePlan('{\n  "goal": "g",\n  "steps": "not a list"\n}', 'json')).toMatchObject({ ok: false, error: { field: 'steps', line: 3 } });
    expect(parsePlan('## Context\n\nonly context\n', 'markdown')).toEqual({ ok: false, error: { field: 'goal', line: 1, message: 'is required: the file has no "## Goal" section' } });
    expect(parsePlan('## Goal\n\ng\n\n## Steps\n\n- a\n\n## Goal\n\nagain\n', 'markdown')).toMatchObject({ ok: false, error: { field: 'goal', line: 9 } });
    expect(parsePlan('## Goal\n\n\n## Steps\n- a\n', 'markdown')).toEqual({ ok: false, error: { field: 'goal', line: 1, message: 'must not be empty' } });
  });

  it('knows the formats by extension', () => {
    expect(['a.yaml', 'a.yml', 'a.JSON', 'a.md', 'a.txt'].map(planFormatOf)).toEqual(['yaml', 'yaml', 'json', 'markdown', undefined]);
  });
});
