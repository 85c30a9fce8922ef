import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness';
import { toolContext } from './support/tool-context';

const PROJECT = 'acme/analysed';

describe('get_analysis sections', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    const document = JSON.parse('{"summary":{"total":1},"findings":{"vulnerabilities":[{"id":"CVE-1","severity":"high"}]},"__proto__":{"own":"a key named __proto__"}}');
    await h.server.runtime.projects.putAnalysis(PROJECT, 'code-security', document);
    // The tools act for the session's members: an administrator may read every project.
    const now = new Date().toISOString();
    await h.server.runtime.sessions.createSession({ session_id: 'analysis-session', title: 'analysis', agent_id: 'zero', created_at: now, updated_at: now }, { user_id: 'dev' });
  });
  afterAll(() => h.close());

  const getAnalysis = (input: Record<string, unknown>) => {
    const rt = h.server.runtime;
    const context = toolContext(rt, { sessionId: 'analysis-session', projectId: PROJECT, tools: ['get_analysis'] });
    return rt.tools.execute('get_analysis', { scanner: 'code-security', ...input }, context, { timeoutMs: 10_000, maxOutputChars: 50_000 });
  };

  it('treats inherited names (constructor, toString, __proto__, hasOwnProperty) as missing sections, at any depth', async () => {
    for (const section of ['constructor', 'toString', 'hasOwnProperty', 'summary.constructor', 'findings.vulnerabilities.constructor', 'summary.__proto__']) {
      const result = await getAnalysis({ section });
      expect({ section, ...result }).toEqual({ section, is_error: true, truncated: false, content: expect.stringMatching(/^section: ".*" is not in the code-security analysis/) });
    }
  });

  it('still finds real sections, array items by index, and a key the document itself names __proto__', async () => {
    expect(await getAnalysis({ section: 'summary.total' })).toMatchObject({ is_error: false, content: 'code-security analysis of acme/analysed, section summary.total:\n1' });
    expect(await getAnalysis({ section: 'findings.vulnerabilities.0.id' })).toMatchObject({ is_error: false, content: expect.stringContaining('"CVE-1"') });
    expect(await getAnalysis({ section: '__proto__' })).toMatchObject({ is_error: false, content: expect.stringContaining('a key named __proto__') });
  });
});
