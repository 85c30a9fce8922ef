import { describe, expect, it } from 'vitest';
import { askInputSchema, askToolName } from './ask-agent';
import { resourceUri } from './resources';

describe('the MCP server’s names', () => {
  it('ask_<agent>: a /v1 agent’s pinned version becomes a name MCP clients accept', () => {
    const valid = /^[A-Za-z0-9._-]{1,128}$/;
    for (const [id, name] of [
      ['zero', 'ask_zero'],
      ['agent_01abc@1', 'ask_agent_01abc.v1'],
      ['odd id/with:chars', 'ask_odd_id_with_chars'],
    ]) {
      expect(askToolName(id!)).toBe(name);
      expect(askToolName(id!)).toMatch(valid);
    }
    expect(askToolName('x'.repeat(300))).toMatch(valid);
  });

  it('resource URIs percent-encode each segment, so a path cannot reach another project', () => {
    expect(resourceUri('acme/site', 'files', 'src/a b.ts')).toBe('zero://projects/acme/site/files/src/a%20b.ts');
    expect(resourceUri('acme/site', 'reports', 'r?x#y.pdf')).toBe('zero://projects/acme/site/reports/r%3Fx%23y.pdf');
  });

  it('the ask tool takes a message and nothing it does not know', () => {
    expect(askInputSchema.safeParse({ message: 'hi', project_id: 'acme/site' }).success).toBe(true);
    expect(askInputSchema.safeParse({ message: 'hi', admin: true }).success).toBe(false);
    expect(askInputSchema.safeParse({ message: '  ' }).error?.issues[0]?.message).toBe('must not be empty');
    expect(askInputSchema.safeParse({ message: 'hi', project_id: '../etc' }).success).toBe(false);
  });
});
