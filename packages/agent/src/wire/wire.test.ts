import { describe, expect, it } from 'vitest';
import { logRecordSchema } from '../records/log-record';
import { chatRequestSchema, gitRefSchema, githubTokenRefSchema } from './requests';
import { historyRecordSchema } from './responses';

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

describe('the chat request', () => {
  it('takes a message or a plan, never both and never neither, naming the field', () => {
    expect(chatRequestSchema.safeParse({ message: 'hi' }).success).toBe(true);
    expect(chatRequestSchema.safeParse({ plan: { goal: 'ship', steps: ['a'] } }).success).toBe(true);
    expect(issuesOf(chatRequestSchema.safeParse({}))).toEqual(['message: is required (or send a plan)']);
    expect(issuesOf(chatRequestSchema.safeParse({ message: 'hi', plan: { goal: 'g', steps: ['a'] } }))).toContain(
      'plan: must not be sent with a message: send one or the other',
    );
  });

  it('refuses an empty message and fields it does not know (a typo is not ignored)', () => {
    expect(issuesOf(chatRequestSchema.safeParse({ message: '   ' }))).toEqual(['message: must not be empty']);
    const typo = chatRequestSchema.safeParse({ message: 'hi', agentid: 'x' });
    expect(typo.success).toBe(false);
    expect(JSON.stringify(typo.error?.issues)).toContain('agentid');
    expect(chatRequestSchema.safeParse({ message: 'hi', tools_required: [] }).success).toBe(false);
  });
});

describe('references a request may carry', () => {
  it('a git ref: branches, tags and shas, never a path that climbs', () => {
    for (const ref of ['main', 'v1.2.3', 'feature/x', 'a'.repeat(40)]) expect(gitRefSchema.safeParse(ref).success, ref).toBe(true);
    for (const ref of ['../etc', 'a/../b', '/main', 'main/', 'a b', 'x;rm -rf /', '']) expect(gitRefSchema.safeParse(ref).success, ref).toBe(false);
  });

  it('a GitHub token reference names a variable, never carries a token', () => {
    expect(githubTokenRefSchema.safeParse('ZERO_GITHUB_TOKEN_ACME').success).toBe(true);
    expect(githubTokenRefSchema.safeParse('ZERO_GITHUB_APP').success).toBe(true);
    expect(githubTokenRefSchema.safeParse('ghp_0123456789abcdef').success).toBe(false);
    expect(githubTokenRefSchema.safeParse('ANTHROPIC_API_KEY').success).toBe(false);
    expect(issuesOf(githubTokenRefSchema.safeParse('ZERO_GITHUB_APP_PRIVATE_KEY'))[0]).toMatch(/names the App, not its variables/);
  });
});

describe('history records', () => {
  const runEnd = { v: 1, seq: 3, at: '2026-01-01T00:00:00Z', run_id: 'r', kind: 'run_end', status: 'completed', steps: 1, budget: 'session',
    usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 } };

  it('serve the stored record whole (the wire is derived from the one log schema, so it keeps budget and images)', () => {
    expect(logRecordSchema.parse(runEnd)).toMatchObject({ budget: 'session' });
    expect(historyRecordSchema.parse(runEnd)).toMatchObject({ budget: 'session' });
    const withImage = { v: 1, seq: 2, at: 'x', run_id: 'r', kind: 'tool_result', step: 1, tool_use_id: 't', name: 'shot', content: 'see image',
      images: [{ media_type: 'image/png', data: 'iVBORw0KGgo=' }] };
    expect(historyRecordSchema.parse(withImage)).toMatchObject({ images: [{ media_type: 'image/png' }] });
  });

  it('stay readable when a later version adds a field, and never show a sealed gap', () => {
    expect(historyRecordSchema.parse({ ...runEnd, added_later: 1 })).toMatchObject({ added_later: 1 });
    const gap = { v: 1, seq: 4, at: 'x', run_id: 'r', kind: 'void' };
    expect(logRecordSchema.safeParse(gap).success).toBe(true);
    expect(historyRecordSchema.safeParse(gap).success).toBe(false);
  });
});
