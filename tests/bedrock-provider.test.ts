import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bedrockModelId } from '@zero/agent/model/bedrock';
import { syncAgents } from '../local/stack';
import { startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

describe('Claude on Bedrock, the default provider of a deployment without an Anthropic key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ noModel: true, bedrock: true, providers: { default: 'bedrock' } });
    const dir = mkdtempSync(join(tmpdir(), 'zero-bedrock-'));
    writeFileSync(join(dir, 'br-haiku.md'), '---\nname: Haiku\ndescription: A quick one.\nmodel: haiku\ntools: echo, WebSearch\n---\n\n## Role\n\nYou are quick.\n');
    await syncAgents(h.stack.store, dir);
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.fake.reset();
    h.bedrock!.reset();
  });

  it('runs an alias on Bedrock: its model id in the path, SigV4 for the region, the Messages body with its cache breakpoints', async () => {
    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'b' } }] }, { text: 'Done on Bedrock.', usage: { input_tokens: 40, cache_read_input_tokens: 900, cache_creation_input_tokens: 100, output_tokens: 12 } });
    const { events } = await chatStream(h.url, { agent_id: 'br-haiku', message: 'hello' });

    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });
    const [first] = h.bedrock!.requests;
    expect(first!.modelId).toBe('anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(first!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/eu-west-3\/bedrock\/aws4_request/);
    expect(first!.body).toMatchObject({ anthropic_version: expect.any(String), max_tokens: expect.any(Number) });
    expect(first!.body).not.toHaveProperty('model');
    expect(JSON.stringify(first!.body.system)).toContain('cache_control');
    // Bedrock runs no server tools: web_search is not offered there, echo is.
    expect((first!.body.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo']);
    // Usage, cache tokens included, priced at Claude's list prices (Haiku 4.5: $1 / $5, reads 0.1×, writes 1.25×).
    const last = events.at(-1) as unknown as { usage: Record<string, number> };
    expect(last.usage.cache_read_input_tokens).toBeGreaterThanOrEqual(900);
    expect(last.usage.cost_usd).toBeGreaterThan(0);
    expect(last.usage).not.toHaveProperty('cost_known');
  });

  it('retries a throttled call and a stream that fails mid-way (an exception frame) like Anthropic’s', async () => {
    h.fake.script({ status: 429, retryAfterSeconds: 0 }, { text: 'half of it then', failAfterChunks: 2 }, { text: 'whole answer' });
    const { events } = await chatStream(h.url, { agent_id: 'br-haiku', message: 'flaky' });
    expect(h.bedrock!.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === 'retry')).toEqual([expect.objectContaining({ attempt: 1 })]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('maps Claude ids to Bedrock’s, keeps Bedrock’s own ids and inference profiles, and takes configured ones first', () => {
    expect(bedrockModelId('claude-sonnet-4-5')).toBe('anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(bedrockModelId('us.anthropic.claude-opus-4-1-20250805-v1:0')).toBe('us.anthropic.claude-opus-4-1-20250805-v1:0');
    expect(bedrockModelId('claude-sonnet-4-6', { 'claude-sonnet-4-6': 'global.anthropic.claude-sonnet-4-6' })).toBe('global.anthropic.claude-sonnet-4-6');
    expect(bedrockModelId('claude-opus-4-7')).toBe('anthropic.claude-opus-4-7');
  });
});
