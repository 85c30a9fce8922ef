import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirAgentCatalog } from '../definitions/catalog';
import { ZeroError } from '../errors';
import { resolveRunSetup } from './run-setup';

describe('resolveRunSetup: one rule for a message and for a delegated task', () => {
  let dir: string;
  let catalog: DirAgentCatalog;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-run-setup-'));
    await writeFile(join(dir, 'scout.md'), '---\nname: scout\ndescription: Looks around.\nmodel: haiku\nvoice: minimal\n---\n\nYou look around.\n');
    await writeFile(join(dir, 'helper.md'), '---\nname: helper\ndescription: Helps.\n---\n\nYou help.\n');
    catalog = new DirAgentCatalog(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("takes the agent's model and voice when the request names none", async () => {
    const setup = await resolveRunSetup(catalog, { agentId: 'scout' }, 'claude-default');
    expect(setup).toMatchObject({ agent: { id: 'scout' }, model: 'claude-haiku-4-5', voice: 'minimal' });
  });

  it("lets the request's model and voice win, and the deployment's model come last", async () => {
    expect(await resolveRunSetup(catalog, { agentId: 'scout', model: 'opus', voice: 'neutral' }, 'claude-default')).toMatchObject({ model: 'claude-opus-4-7', voice: 'neutral' });
    expect(await resolveRunSetup(catalog, { agentId: 'helper' }, 'claude-default')).toMatchObject({ agent: { id: 'helper' }, model: 'claude-default', voice: 'full' });
  });

  it('answers with the fallback agent when the one asked for is gone, and says why when there is none', async () => {
    expect(await resolveRunSetup(catalog, { agentId: 'retired', fallbackAgentId: 'helper' }, 'claude-default')).toMatchObject({ agent: { id: 'helper' } });
    const missing = await resolveRunSetup(catalog, { agentId: 'retired' }, 'claude-default');
    expect(missing.agent).toBeUndefined();
    expect(ZeroError.isInstance(missing.missing) && missing.missing.message).toContain('available agents: helper, scout');
  });
});
