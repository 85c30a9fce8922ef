import { describe, expect, it } from 'vitest';
import { parseAgentMarkdown } from '../../definitions/parse';
import { PermissionPolicy } from './permission-policy';
import { permissionsFromEnv } from './deployment';

const writeFile = { name: 'write_file', readOnly: false };
const readFile = { name: 'read_file', readOnly: true };
const agent = (extra: object = {}) => ({ id: 'writer', ...extra });

describe('PermissionPolicy: resolution order', () => {
  it('allows read-only tools and asks about tools with side effects, unless the deployment says otherwise', async () => {
    const byDefault = new PermissionPolicy();
    expect(await byDefault.decide(readFile, agent(), undefined)).toEqual({ decision: 'allow', level: 'deployment', source: 'the deployment default for read-only tools' });
    expect(await byDefault.decide(writeFile, agent(), undefined)).toEqual({ decision: 'ask', level: 'deployment', source: 'the deployment default for tools with side effects' });
    const open = new PermissionPolicy({ side_effects: 'allow' });
    expect(await open.decide(writeFile, agent(), undefined)).toMatchObject({ decision: 'allow', level: 'deployment' });
    expect(await open.decide(readFile, agent(), undefined)).toMatchObject({ decision: 'allow' });
  });

  it('takes the strictest of the deployment, the agent file and the session: a layer may tighten the deployment, never loosen it', async () => {
    const policy = new PermissionPolicy({ side_effects: 'ask', rules: { edit_file: 'deny' } });
    const editFile = { name: 'edit_file', readOnly: false };
    expect(await policy.decide(editFile, agent(), undefined)).toEqual({ decision: 'deny', level: 'deployment', source: 'ZERO_PERMISSIONS rule "edit_file"' });
    // An agent that allows everything (a /v1 toolset's always_allow, bypassPermissions) and a session that allows change nothing.
    const allowing = agent({ permissions: { write_file: 'allow', edit_file: 'allow' } });
    expect(await policy.decide(editFile, allowing, { edit_file: 'allow' })).toMatchObject({ decision: 'deny', level: 'deployment' });
    expect(await policy.decide(writeFile, allowing, { write_file: 'allow' })).toEqual({ decision: 'ask', level: 'deployment', source: 'the deployment default for tools with side effects' });
    expect(await policy.decide(writeFile, agent({ permission_mode: 'bypassPermissions' }), undefined)).toMatchObject({ decision: 'ask', level: 'deployment' });
    // Stricter layers decide, and name themselves.
    expect(await policy.decide(writeFile, agent({ permissions: { write_file: 'deny' } }), undefined)).toEqual({ decision: 'deny', level: 'agent', source: 'agent "writer" permissions "write_file"' });
    expect(await policy.decide(writeFile, allowing, { write_file: 'deny' })).toEqual({ decision: 'deny', level: 'session', source: 'session override "write_file"' });
    // Where the deployment allows, the agent and the session may keep it or tighten it; equal decisions name the most specific layer.
    const open = new PermissionPolicy({ side_effects: 'allow' });
    expect(await open.decide(writeFile, allowing, undefined)).toEqual({ decision: 'allow', level: 'agent', source: 'agent "writer" permissions "write_file"' });
    expect(await open.decide(writeFile, allowing, { write_file: 'ask' })).toEqual({ decision: 'ask', level: 'session', source: 'session override "write_file"' });
    // A session override on another tool leaves this one to the others.
    expect(await open.decide(writeFile, allowing, { read_file: 'deny' })).toMatchObject({ decision: 'allow', level: 'agent' });
    expect(await open.decide(writeFile, agent({ permission_mode: 'plan' }), { write_file: 'allow' })).toMatchObject({ decision: 'deny', level: 'agent' });
  });

  it('matches globs such as mcp__github__*, an exact name winning over a glob of the same set', async () => {
    const policy = new PermissionPolicy({ mcp: 'allow' });
    const rules = agent({ permissions: { 'mcp__github__*': 'deny', mcp__github__get_issue: 'allow', '*': 'ask' } });
    expect(await policy.decide({ name: 'mcp__github__create_issue', readOnly: false, mcp: true }, rules, undefined)).toMatchObject({ decision: 'deny', source: 'agent "writer" permissions "mcp__github__*"' });
    expect(await policy.decide({ name: 'mcp__github__get_issue', readOnly: true, mcp: true }, rules, undefined)).toMatchObject({ decision: 'allow' });
    // Two globs match: the stricter wins, whatever the order of the keys.
    expect(await policy.decide({ name: 'mcp__slack__post', readOnly: false, mcp: true }, rules, undefined)).toMatchObject({ decision: 'ask', source: 'agent "writer" permissions "*"' });
    expect(await policy.decide({ name: 'mcp__github__x', readOnly: false, mcp: true }, agent({ permissions: { '*': 'allow', 'mcp__*': 'deny' } }), undefined)).toMatchObject({ decision: 'deny' });
  });

  it('applies input rules to the subject within a layer: write_file allowed under reports/, asked elsewhere', async () => {
    const policy = new PermissionPolicy({ side_effects: 'allow' });
    const file = agent({ permissions: { write_file: 'ask', 'write_file(reports/**)': 'allow', 'write_file(reports/private/**)': 'deny' } });
    expect(await policy.decide(writeFile, file, undefined, 'reports/audit.md')).toMatchObject({ decision: 'allow', source: 'agent "writer" permissions "write_file(reports/**)"' });
    expect(await policy.decide(writeFile, file, undefined, 'reports/.hidden/x.md')).toMatchObject({ decision: 'allow' });
    expect(await policy.decide(writeFile, file, undefined, 'reports/private/keys.md')).toMatchObject({ decision: 'deny' });
    expect(await policy.decide(writeFile, file, undefined, 'artifacts/notes.md')).toMatchObject({ decision: 'ask', source: 'agent "writer" permissions "write_file"' });
    // Without a subject (a tool that declares none) input rules never match.
    expect(await policy.decide(writeFile, file, undefined)).toMatchObject({ decision: 'ask' });
    expect(await policy.decide(writeFile, file, { write_file: 'deny' }, 'reports/audit.md')).toMatchObject({ decision: 'deny', level: 'session' });
    // The deployment's input rules bound the agent's too: an ask under reports/ holds whatever the agent allows.
    const careful = new PermissionPolicy({ side_effects: 'allow', rules: { 'write_file(reports/**)': 'ask' } });
    expect(await careful.decide(writeFile, file, undefined, 'reports/audit.md')).toMatchObject({ decision: 'ask', level: 'deployment' });
  });

  it.each([
    ['default', 'ask', 'ask', 'allow'],
    ['acceptEdits', 'ask', 'ask', 'allow'],
    ['bypassPermissions', 'ask', 'ask', 'allow'],
    ['plan', 'deny', 'deny', 'allow'],
    ['dontAsk', 'deny', 'deny', 'allow'],
  ] as const)('maps permissionMode %s under a deployment that asks: write_file %s, web_fetch %s, read_file %s', async (mode, write, fetch, read) => {
    const policy = new PermissionPolicy({ side_effects: 'ask' });
    const file = agent({ permission_mode: mode });
    expect((await policy.decide(writeFile, file, undefined)).decision).toBe(write);
    expect((await policy.decide({ name: 'web_fetch', readOnly: false }, file, undefined)).decision).toBe(fetch);
    expect((await policy.decide(readFile, file, undefined)).decision).toBe(read);
  });

  it.each([
    ['default', 'allow', 'allow'],
    ['acceptEdits', 'allow', 'allow'],
    ['bypassPermissions', 'allow', 'allow'],
    ['plan', 'deny', 'deny'],
  ] as const)('maps permissionMode %s under a deployment that allows: write_file %s, web_fetch %s', async (mode, write, fetch) => {
    const policy = new PermissionPolicy({ side_effects: 'allow' });
    const file = agent({ permission_mode: mode });
    expect((await policy.decide(writeFile, file, undefined)).decision).toBe(write);
    expect((await policy.decide({ name: 'web_fetch', readOnly: false }, file, undefined)).decision).toBe(fetch);
  });

  it("puts a tool's own say on a call below the deployment's rules and above its defaults; no agent or session lifts it", async () => {
    const policy = new PermissionPolicy({ side_effects: 'allow', rules: { 'run_command(npm test)': 'allow' } });
    const command = { name: 'run_command', readOnly: false, ask: 'run_command: "python3" is not on the command allowlist' };
    expect(await policy.decide(command, agent(), undefined, 'python3 -c x')).toEqual({ decision: 'ask', level: 'deployment', source: command.ask });
    expect(await policy.decide(command, agent(), undefined, 'npm test')).toMatchObject({ decision: 'allow', source: 'ZERO_PERMISSIONS rule "run_command(npm test)"' });
    expect(await policy.decide(command, agent({ permissions: { run_command: 'deny' } }), undefined, 'python3 -c x')).toMatchObject({ decision: 'deny' });
    expect(await policy.decide(command, agent({ permissions: { run_command: 'allow' } }), { run_command: 'allow' }, 'python3 -c x')).toMatchObject({ decision: 'ask', level: 'deployment' });
    expect(await policy.decide(command, agent({ permission_mode: 'dontAsk' }), undefined, 'python3 -c x')).toMatchObject({ decision: 'deny' });
    // A call the tool calls read-only gets the read-only default, and plan mode lets it run.
    const listing = { name: 'run_command', readOnly: true };
    expect(await new PermissionPolicy({ side_effects: 'ask' }).decide(listing, agent({ permission_mode: 'plan' }), undefined, 'ls')).toMatchObject({ decision: 'allow' });
  });

  it("puts the file's own rules above its permissionMode within the agent's layer", async () => {
    const policy = new PermissionPolicy({ side_effects: 'allow' });
    const planner = agent({ permission_mode: 'plan', permissions: { 'write_file(reports/**)': 'allow' } });
    expect(await policy.decide(writeFile, planner, undefined, 'reports/plan.md')).toMatchObject({ decision: 'allow' });
    expect(await policy.decide(writeFile, planner, undefined, 'artifacts/x.md')).toMatchObject({ decision: 'deny', source: 'agent "writer" permissionMode "plan"' });
    expect(await policy.decide(writeFile, agent({ permission_mode: 'bypassPermissions' }), { write_file: 'deny' })).toMatchObject({ decision: 'deny', level: 'session' });
  });

  it("puts a tool's own default rules below the deployment's rules and above its defaults", async () => {
    const http = { name: 'http_request', readOnly: false, rules: { 'http_request(GET *)': 'allow' as const } };
    const byDefault = new PermissionPolicy();
    expect(await byDefault.decide(http, agent(), undefined, 'GET api.github.com')).toEqual({ decision: 'allow', level: 'deployment', source: 'tool "http_request" built-in rule "http_request(GET *)"' });
    expect(await byDefault.decide(http, agent(), undefined, 'POST api.github.com')).toMatchObject({ decision: 'ask', source: 'the deployment default for tools with side effects' });
    const strict = new PermissionPolicy({ rules: { http_request: 'deny' } });
    expect(await strict.decide(http, agent(), undefined, 'GET api.github.com')).toMatchObject({ decision: 'deny', source: 'ZERO_PERMISSIONS rule "http_request"' });
    expect(await byDefault.decide(http, agent({ permissions: { 'http_request(GET *)': 'ask' } }), undefined, 'GET api.github.com')).toMatchObject({ decision: 'ask', level: 'agent' });
  });

  it("describes a tool for GET /agents: the decision and every layer's input rules on it", async () => {
    const policy = new PermissionPolicy({ side_effects: 'ask', rules: { 'write_file(artifacts/**)': 'allow' } });
    expect(await policy.describe(writeFile, agent({ permissions: { 'write_file(reports/**)': 'deny' } }), { 'write_file(notes/**)': 'ask' })).toEqual({
      decision: 'ask',
      level: 'deployment',
      source: 'the deployment default for tools with side effects',
      input_rules: [
        { rule: 'write_file(notes/**)', decision: 'ask', level: 'session' },
        { rule: 'write_file(reports/**)', decision: 'deny', level: 'agent' },
        { rule: 'write_file(artifacts/**)', decision: 'allow', level: 'deployment' },
      ],
    });
  });
});

describe('ZERO_PERMISSIONS', () => {
  it('reads the deployment defaults, and refuses a malformed value naming the field', () => {
    expect(permissionsFromEnv(undefined)).toBeUndefined();
    expect(permissionsFromEnv('{"side_effects":"ask","rules":{"web_fetch(*.github.com)":"allow"}}')).toEqual({ side_effects: 'ask', rules: { 'web_fetch(*.github.com)': 'allow' } });
    expect(() => permissionsFromEnv('{"side_effects":"maybe"}')).toThrow(/^ZERO_PERMISSIONS: side_effects: /);
    expect(() => permissionsFromEnv('{"rules":{"write_file(":"allow"}}')).toThrow('ZERO_PERMISSIONS: rules.write_file(: must be a tool name or glob');
    expect(() => permissionsFromEnv('{"sideEffects":"ask"}')).toThrow('ZERO_PERMISSIONS: sideEffects: is not a field this request takes');
    expect(() => permissionsFromEnv('side_effects=ask')).toThrow(/must be JSON/);
  });
});

describe('agent files: Claude Code fields and permissions:', () => {
  const known = new Set(['read_file', 'grep', 'glob', 'write_file', 'web_fetch']);

  it('takes disallowedTools away, keeps its input rules as deny, and maps Claude Code names in rules', async () => {
    const text = `---
name: auditor
description: Audits.
disallowedTools: WebFetch, Write(src/**)
permissionMode: acceptEdits
permissions:
  Write(reports/**): allow
  mcp__github__*: deny
  "write_file(src/**)": allow
---
Audit.
`;
    const result = parseAgentMarkdown('agents/auditor.md', text, known);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.agent.tools).toEqual(['read_file', 'grep', 'glob', 'write_file']);
    expect(result.agent.permission_mode).toBe('acceptEdits');
    // disallowedTools wins the clash with the permissions: entry for the same rule.
    expect(result.agent.permissions).toEqual({ 'write_file(reports/**)': 'allow', 'mcp__github__*': 'deny', 'write_file(src/**)': 'deny', web_fetch: 'deny' });
    const policy = new PermissionPolicy({ side_effects: 'allow' });
    expect(await policy.decide(writeFile, result.agent, undefined, 'src/index.ts')).toMatchObject({ decision: 'deny' });
    expect(await policy.decide(writeFile, result.agent, undefined, 'artifacts/x.md')).toMatchObject({ decision: 'allow', source: 'agent "auditor" permissionMode "acceptEdits"' });
  });

  it('warns about a permissionMode Zero does not know and uses default; a bad permissions: entry is an error naming it', () => {
    const odd = parseAgentMarkdown('agents/odd.md', '---\nname: odd\ndescription: d\npermissionMode: auto\n---\nBody.\n', known);
    expect(odd).toMatchObject({ ok: true, agent: { warnings: ['permissionMode "auto" is not one Zero knows (default, acceptEdits, bypassPermissions, plan, dontAsk); "default" is used'] } });
    if (odd.ok) expect(odd.agent.permission_mode).toBeUndefined();
    const bad = parseAgentMarkdown('agents/bad.md', '---\nname: bad\ndescription: d\npermissions:\n  write_file: sometimes\n---\n', known);
    expect(bad).toMatchObject({ ok: false, error: { field: 'permissions.write_file' } });
  });
});
