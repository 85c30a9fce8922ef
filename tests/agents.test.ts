import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '@zero/runtime/store/clients';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

// Claude Code subagent files as people write them (shapes seen in public repositories), uploaded to the
// bucket's agents/ prefix the way a deployment gets its agents.
const WIZARD_SHAPED = `---
name: pr-reviewer
description: Use this agent to review a pull request. Examples: <example>Context: The user has finished a feature. user: "Check my changes" assistant: "I'll use the Task tool to launch the pr-reviewer agent."</example>
model: opus
color: green
---

You are an expert code reviewer.
`;
const WITHOUT_TOOLS = `---
name: generalist
description: Helps with anything; names no tools, so it has all of them.
---

You help.
`;
const WITH_CLAUDE_CODE_ONLY_TOOLS = `---
name: shell-user
description: Runs commands and edits files in Claude Code.
tools: Read, Grep, Bash, Edit, mcp__github__create_issue
---

You fix things.
`;

describe('Claude Code subagent files in the catalog', () => {
  let h: Harness;
  let s3: S3Client;
  const upload = (name: string, text: string) =>
    s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: `agents/${name}.md`, Body: text, ContentType: 'text/markdown' }));

  beforeAll(async () => {
    h = await startHarness();
    s3 = createS3Client(h.stack.store);
    await upload('pr-reviewer', WIZARD_SHAPED);
    await upload('generalist', WITHOUT_TOOLS);
    await upload('shell-user', WITH_CLAUDE_CODE_ONLY_TOOLS);
    // Files shaped like real Claude Code subagents (tests/fixtures/claude-code-agents).
    const fixtures = join(import.meta.dirname, 'fixtures', 'claude-code-agents');
    for (const file of readdirSync(fixtures)) await upload(file.replace(/\.md$/, ''), readFileSync(join(fixtures, file), 'utf8'));
  });
  afterAll(async () => {
    s3.destroy();
    await h.close();
  });

  const listAgents = async () => {
    const { status, json } = await getJson(`${h.url}/api/v2/agents`);
    expect(status).toBe(200);
    return json as { agents: Record<string, any>[]; errors: Record<string, any>[] };
  };

  it('loads a file whose unquoted description holds "Examples: <example>Context: …", and says it was read leniently', async () => {
    const { agents, errors } = await listAgents();
    expect(errors.map((e) => e.file)).not.toContain('agents/pr-reviewer.md');
    const reviewer = agents.find((a) => a.id === 'pr-reviewer');
    expect(reviewer).toMatchObject({ name: 'pr-reviewer', model: 'claude-opus-4-7' });
    expect(reviewer!.description).toContain('Examples: <example>Context: The user has finished a feature.');
    expect(reviewer!.warnings).toEqual([expect.stringContaining('the frontmatter is not valid YAML')]);
  });

  it('gives a file without tools: every tool Zero has, and the model is offered them all', async () => {
    const { agents } = await listAgents();
    const generalist = agents.find((a) => a.id === 'generalist')!;
    expect(generalist.tools).toEqual(
      expect.arrayContaining(['read_file', 'grep', 'glob', 'write_file', 'list_projects', 'get_analysis', 'web_fetch', 'web_search', 'get_agent_info', 'echo']),
    );
    expect(generalist.tools).not.toContain('delegate_agent');

    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'inherited' } }] }, { text: 'Done.' });
    const { events } = await chatStream(h.url, { agent_id: 'generalist', message: 'Echo "inherited".' });
    const offered = h.fake.requests[0]!.body.tools!.map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'grep', 'write_file', 'web_fetch', 'web_search', 'echo']));
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ name: 'echo', content: 'echo: inherited', is_error: false });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('lists the tools Zero does not have as unavailable, each with the reason', async () => {
    const { agents } = await listAgents();
    const shellUser = agents.find((a) => a.id === 'shell-user')!;
    expect(shellUser.tools).toEqual(['read_file', 'grep', 'bash', 'edit_file']);
    expect(shellUser.unavailable_tools).toEqual([
      // Issue 15: MCP tools are granted now; one whose server nobody declares is still said to be unavailable.
      { name: 'mcp__github__create_issue', reason: expect.stringContaining('no MCP server "github"') },
    ]);
    // …and warned about, as any tool left out is.
    expect(shellUser.warnings).toEqual([expect.stringMatching(/^tool "mcp__github__create_issue" was left out: no MCP server "github"/)]);
  });

  it('maps every Claude Code tool Zero can honour and says why each other one is left out', async () => {
    const { agents } = await listAgents();
    const release = agents.find((a) => a.id === 'release-engineer')!;
    expect(release).toMatchObject({ model: 'claude-sonnet-4-6', color: 'orange' });
    expect(release.tools).toEqual(['bash', 'read_file', 'edit_file', 'write_file', 'list_files', 'glob', 'grep', 'web_fetch', 'web_search', 'delegate_agent']);
    expect(release.unavailable_tools.map((t: { name: string }) => t.name)).toEqual(['BashOutput', 'KillShell', 'TodoWrite', 'mcp__task-master__get_tasks']);
    for (const tool of release.unavailable_tools) expect(tool.reason).not.toBe('Zero has no tool of this name');
    expect(release.warnings).toHaveLength(4);
    expect(release.warnings).toContainEqual(expect.stringMatching(/^tool "mcp__task-master__get_tasks" was left out: no MCP server "task-master"/));
  });

  it('refuses a file whose model is no model Zero knows, naming the field, instead of sending it to the API', async () => {
    const { agents, errors } = await listAgents();
    expect(agents.map((a) => a.id)).not.toContain('storyteller');
    expect(errors).toContainEqual({ file: 'agents/storyteller.md', field: 'model', message: expect.stringContaining('model "fable" is not a Claude model id') });
  });
});

describe('an agent’s persona and domain (the plan’s agent definition)', () => {
  let h: Harness;
  let s3: S3Client;
  const upload = (name: string, text: string) =>
    s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: `agents/${name}.md`, Body: text, ContentType: 'text/markdown' }));
  const systemOf = (n: number) => (h.fake.requests[n]!.body.system as { text: string }[]).map((b) => b.text).join('\n\n');

  beforeAll(async () => {
    h = await startHarness();
    s3 = createS3Client(h.stack.store);
    await upload(
      'razor',
      `---\nname: Razor\ndescription: Reads licences.\npersona: "Razor: a pirate-radio DJ who explains licences as if on air"\ndomain: licence compliance\ntools: []\n---\n\n## Role\n\nYou read licences.\n`,
    );
    await upload('blade', `---\nname: Blade\ndescription: Also reads licences.\ndomain: licence compliance\ntools: []\n---\n\nYou read licences too.\n`);
    await upload('rambler', `---\nname: Rambler\ndescription: Talks too much.\npersona: "${'x'.repeat(501)}"\n---\n\nYou talk.\n`);
  });
  afterAll(async () => {
    s3.destroy();
    await h.close();
  });

  it('lists them in the catalog, and refuses a persona longer than 500 characters naming the field', async () => {
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const byId = Object.fromEntries(json.agents.map((a: { id: string }) => [a.id, a]));
    expect(byId.razor).toMatchObject({ persona: 'Razor: a pirate-radio DJ who explains licences as if on air', domain: 'licence compliance' });
    expect(byId.blade).toMatchObject({ domain: 'licence compliance' });
    expect(byId.blade).not.toHaveProperty('persona');
    expect(byId.cereal).toMatchObject({ domain: 'supply-chain security', persona: expect.stringContaining('Cereal Killer') });
    expect(json.errors).toContainEqual({ file: 'agents/rambler.md', field: 'persona', message: expect.stringContaining('at most 500 characters') });
  });

  it('puts the domain in the prompt, and the persona in every voice but neutral', async () => {
    h.fake.script({ text: 'On air.' }, { text: 'Plainly.' });
    await chatStream(h.url, { agent_id: 'razor', message: 'which licence?' });
    await chatStream(h.url, { agent_id: 'razor', message: 'which licence?', voice_mode: 'neutral' });

    expect(systemOf(0)).toContain('You are Razor, an agent of Zero. Reads licences.\nYour domain: licence compliance.');
    expect(systemOf(0)).toContain('## Persona\nRazor: a pirate-radio DJ who explains licences as if on air');
    expect(systemOf(1)).toContain('Your domain: licence compliance.');
    expect(systemOf(1)).not.toContain('pirate-radio');
  });
});
