import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, DEV } from './support/harness';
import { chatStream } from './support/sse';

describe('web_search, Anthropic\'s server tool', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('is sent as web_search_20250305 to agents that list it, and its blocks reach the client as tool events', async () => {
    h.fake.script({
      webSearches: [
        { id: 'srvtoolu_1', query: 'lodash CVE', results: [{ title: 'Lodash advisory', url: 'https://example.com/advisory' }] },
        { id: 'srvtoolu_2', query: 'broken', results: { error_code: 'max_uses_exceeded' } },
      ],
      text: 'Lodash has an advisory.',
    });
    const { events } = await chatStream(h.url, { agent_id: 'investigator', message: 'Any lodash advisories?' });
    const tools = h.fake.requests[0]!.body.tools as unknown as { name: string; type?: string; max_uses?: number }[];
    expect(tools).toContainEqual({ type: 'web_search_20250305', name: 'web_search', max_uses: 5 });
    expect(JSON.stringify(h.fake.requests[0]!.body.system)).toContain('web_search: Search the web');

    const relayed = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => ({ ...e, id: undefined }));
    expect(relayed).toEqual([
      expect.objectContaining({ type: 'tool_call', name: 'web_search', input: { query: 'lodash CVE' } }),
      expect.objectContaining({ type: 'tool_result', name: 'web_search', is_error: false, content: '- Lodash advisory (https://example.com/advisory)' }),
      expect.objectContaining({ type: 'tool_call', name: 'web_search', input: { query: 'broken' } }),
      expect.objectContaining({ type: 'tool_result', name: 'web_search', is_error: true, content: 'web search failed: max_uses_exceeded' }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 1 });
    // Zero executes nothing for a server tool: the run is one model call and the blocks are kept in the history.
    const sessionId = (events[0] as { session_id: string }).session_id;
    const session = await (await fetch(`${h.url}/api/v2/sessions/${sessionId}`, { headers: DEV })).json();
    expect(session.history[1].content.map((b: { type: string }) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ]);
  });

  it('is not sent to agents that do not list it', async () => {
    h.fake.script({ text: 'ok' });
    await chatStream(h.url, { agent_id: 'tester', message: 'hi' });
    const tools = (h.fake.requests.at(-1)!.body.tools ?? []) as { name: string }[];
    expect(tools.map((t) => t.name)).not.toContain('web_search');
  });
});
