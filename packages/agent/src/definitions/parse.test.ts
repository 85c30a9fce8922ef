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
    expect(result.agent.warnings).toEqual(['tool "Bash" was left out: its counterpart bash is not enabled on this deployment']);
  });

  // The shape of Anthropic's plugins/pr-review-toolkit/agents/code-reviewer.md (and of many files from
  // Claude Code's agent wizard): an unquoted description with "Examples:" and "Context:" inside, which is
  // not valid YAML ("Nested mappings are not allowed in compact mappings") but loads in Claude Code.
  const wizardShaped = `---
name: pr-reviewer
description: Use this agent when you need to review a pull request before merging. Examples: <example>Context: The user has finished a feature. user: "Can you check my changes?" assistant: "I'll use the Task tool to launch the pr-reviewer agent." <commentary>A finished feature needs review.</commentary></example>\\n\\n<example>Context: The user is about to open a PR.</example>
model: opus
color: green
---

You are an expert code reviewer. Review the unstaged changes.
`;

  it('loads a file whose unquoted description holds "Examples: <example>Context: …", as Claude Code does', () => {
    const result = parseAgentMarkdown('agents/pr-reviewer.md', wizardShaped, known);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.agent.name).toBe('pr-reviewer');
    expect(result.agent.model).toBe('opus');
    expect(result.agent.description).toMatch(/^Use this agent when you need to review a pull request before merging\. Examples: <example>Context: The user has finished/);
    expect(result.agent.description).toMatch(/<example>Context: The user is about to open a PR\.<\/example>$/);
    expect(result.agent.role).toBe('You are an expert code reviewer. Review the unstaged changes.');
    expect(result.agent.warnings).toEqual([expect.stringMatching(/^the frontmatter is not valid YAML \(.* at line 3, column 14:\); its fields were read line by line/)]);
  });

  it("reads Zero's compaction: settings, and names the field of a bad one", () => {
    const good = parseAgentMarkdown('agents/long.md', '---\nname: long\ndescription: d\ncompaction:\n  at_percent: 60\n  keep_turns: 3\n---\nBody.\n', known);
    expect(good).toMatchObject({ ok: true, agent: { compaction: { at_percent: 60, keep_turns: 3 } } });
    const bad = parseAgentMarkdown('agents/long.md', '---\nname: long\ndescription: d\ncompaction:\n  at_percent: 150\n---\nBody.\n', known);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.field).toBe('compaction.at_percent');
  });

  it('keeps the whole YAML error, with the line it points at, when a file still cannot load', () => {
    const result = parseAgentMarkdown('agents/x.md', '---\nname: reviewer: of code\n---\nBody.\n', known);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.field).toBe('frontmatter');
    expect(result.error.message).toMatch(/^invalid YAML: Nested mappings are not allowed in compact mappings at line 2, column 7:/);
    expect(result.error.message).toContain('name: reviewer: of code\n      ^');
  });

  it('gives a file without tools: every registered tool, as Claude Code does, and delegate_agent only with delegates', () => {
    const registry = new Set(['read_file', 'grep', 'web_fetch', 'get_agent_info', 'delegate_agent']);
    const plain = parseAgentMarkdown('agents/helper.md', '---\nname: helper\ndescription: d\n---\nHelp.\n', registry);
    expect(plain).toMatchObject({ ok: true, agent: { tools: ['read_file', 'grep', 'web_fetch', 'get_agent_info'], unavailable_tools: [] } });
    const lead = parseAgentMarkdown('agents/lead.md', '---\nname: lead\ndescription: d\ndelegates_to: helper\n---\nLead.\n', registry);
    expect(lead).toMatchObject({ ok: true, agent: { tools: ['read_file', 'grep', 'web_fetch', 'get_agent_info', 'delegate_agent'] } });
    const none = parseAgentMarkdown('agents/none.md', '---\nname: none\ndescription: d\ntools: []\n---\nNothing.\n', registry);
    expect(none).toMatchObject({ ok: true, agent: { tools: [] } });
  });

  it('maps every Claude Code tool Zero can honour, and keeps the rest aside, each with the reason', () => {
    const registry = new Set(['read_file', 'write_file', 'edit_file', 'bash', 'list_files', 'glob', 'grep', 'web_fetch', 'web_search', 'delegate_agent']);
    const all = 'Bash, Read, Write, Edit, MultiEdit, LS, Glob, Grep, WebFetch, WebSearch, Task, Agent, NotebookRead, BashOutput, KillShell, TodoWrite, NotebookEdit, TeamCreate';
    const mapped = parseAgentMarkdown('agents/all.md', `---\nname: all\ndescription: d\ntools: ${all}\n---\n`, registry);
    expect(mapped).toMatchObject({
      ok: true,
      agent: { tools: ['bash', 'read_file', 'write_file', 'edit_file', 'list_files', 'glob', 'grep', 'web_fetch', 'web_search', 'delegate_agent'] },
    });
    if (!mapped.ok) return;
    expect(mapped.agent.unavailable_tools).toEqual([
      { name: 'BashOutput', reason: expect.stringContaining('no background shells') },
      { name: 'KillShell', reason: expect.stringContaining('no background shells') },
      { name: 'TodoWrite', reason: expect.stringContaining('no to-do list') },
      { name: 'NotebookEdit', reason: expect.stringContaining('no notebook cell editor') },
      { name: 'TeamCreate', reason: expect.stringContaining('agent teams') },
    ]);

    const text = '---\nname: n\ndescription: d\ntools: Read, Bash, Edit, mcp__github__create_issue, Frobnicate\n---\n';
    const result = parseAgentMarkdown('agents/n.md', text, known);
    expect(result).toMatchObject({ ok: true, agent: { tools: ['read_file'] } });
    if (!result.ok) return;
    // A deployment without the counterpart says which one it lacks.
    expect(result.agent.unavailable_tools).toEqual([
      { name: 'Bash', reason: 'its counterpart bash is not enabled on this deployment' },
      { name: 'Edit', reason: 'its counterpart edit_file is not enabled on this deployment' },
      { name: 'Frobnicate', reason: 'Zero has no tool of this name' },
    ]);
    // Issue 15: an MCP tool is a grant its servers fill in when a run starts, no longer set aside.
    expect(result.agent.mcp?.tools).toEqual(['mcp__github__create_issue']);
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
