import { describe, expect, it } from 'vitest';
import { parseAgentMarkdown } from './parse';

const known = new Set(['read_file', 'grep', 'glob', 'get_agent_info']);

describe('parseAgentMarkdown', () => {
  it('loads a Claude Code subagent file as it is', () => {
    const text = `---
name: code-reviewer
description: Reviews code for quality and security.
tools: Read, Grep, Glob, Bash
model: inherit
---

You are a senior code reviewer. Review the diff.
`;
    const result = parseAgentMarkdown('agents/code-reviewer.md', text, known);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.agent).toMatchObject({
      id: 'code-reviewer',
      name: 'code-reviewer',
      tools: ['read_file', 'grep', 'glob'],
      model: undefined,
      role: 'You are a senior code reviewer. Review the diff.',
    });
    expect(result.agent.warnings).toEqual(['tool "Bash" is not provided by Zero and was left out']);
  });

  it("reads Zero's sections, delegation rules and the three voices", () => {
    const text = `---
name: Zero
description: Orchestrator.
tools: [get_agent_info]
voice: minimal
---
## Role
Lead.
## Capabilities
- Triage
- Route
## Delegation
- **cereal**: supply chain
- scout — web research
<!-- VOICE:full -->
Warm.
<!-- /VOICE -->
<!-- VOICE:minimal -->
Terse.
<!-- VOICE:neutral -->
Plain.
## Process
1. Think.
`;
    const result = parseAgentMarkdown('agents/zero.md', text, known);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const a = result.agent;
    expect(a.role).toBe('Lead.');
    expect(a.capabilities).toEqual(['Triage', 'Route']);
    expect(a.delegation).toEqual([
      { agent_id: 'cereal', when: 'supply chain' },
      { agent_id: 'scout', when: 'web research' },
    ]);
    expect(a.voices).toEqual({ full: 'Warm.', minimal: 'Terse.', neutral: 'Plain.' });
    expect(a.default_voice).toBe('minimal');
    expect(a.process).toBe('1. Think.');
  });

  it.each([
    ['no frontmatter', '# hello', 'frontmatter'],
    ['bad YAML', '---\nname: [unclosed\n---\n', 'frontmatter'],
    ['missing name', '---\ndescription: d\n---\n', 'name'],
    ['missing description', '---\nname: n\n---\n', 'description'],
    ['tools of the wrong type', '---\nname: n\ndescription: d\ntools: 42\n---\n', 'tools'],
    ['a bad voice', '---\nname: n\ndescription: d\nvoice: loud\n---\n', 'voice'],
    ['a scalar frontmatter', '---\njust text\n---\n', 'frontmatter'],
  ])('names the file and the field for %s', (_label, text, field) => {
    const result = parseAgentMarkdown('agents/x.md', text, known);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.file).toBe('agents/x.md');
    expect(result.error.field).toBe(field);
  });

  it('refuses a file name that is not an agent id', () => {
    const result = parseAgentMarkdown('agents/Not Valid!.md', '---\nname: n\ndescription: d\n---\n');
    expect(result).toMatchObject({ ok: false, error: { field: 'file name' } });
  });
});
