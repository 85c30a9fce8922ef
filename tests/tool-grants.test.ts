import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, DEV } from './support/harness';
import { chatStream } from './support/sse';

const PROJECT = 'acme/grants';

/** The tool results the model received in request `index`, by tool_use id: exactly what the model saw. */
function resultsSeen(h: Harness, index: number): Record<string, { content: string; is_error: boolean }> {
  const last = h.fake.requests[index]!.body.messages.at(-1)!.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
  return Object.fromEntries(last.filter((b) => b.type === 'tool_result').map((b) => [b.tool_use_id, { content: b.content, is_error: !!b.is_error }]));
}

describe('an agent runs only the tools it was granted', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.server.runtime.projects.putFiles(PROJECT, [{ path: 'src/secret.ts', body: Buffer.from('export const token = "s3cr3t";\n') }]);
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('phreak (web tools only) asking for read_file and write_file gets errors naming them, and nothing is read or written', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'toolu_read', name: 'read_file', input: { path: 'src/secret.ts' } },
          { id: 'toolu_write', name: 'write_file', input: { path: 'reports/written-by-a-reader.md', content: '# Written by a reader\n' } },
        ],
      },
      { text: 'I could not do that.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'phreak', project_id: PROJECT, message: 'Write a report.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    const seen = resultsSeen(h, 1);
    expect(seen.toolu_read).toEqual({ is_error: true, content: expect.stringContaining('Tool "read_file" is not granted to agent "phreak"') });
    expect(seen.toolu_write).toEqual({ is_error: true, content: expect.stringContaining('Tool "write_file" is not granted to agent "phreak"') });
    expect(seen.toolu_read!.content).not.toContain('s3cr3t');

    const report = await fetch(`${h.url}/api/v2/projects/${PROJECT}/reports/written-by-a-reader.md`, { headers: DEV });
    expect(report.status).toBe(404);
    const session = await (await fetch(`${h.url}/api/v2/sessions/${(events[0] as { session_id: string }).session_id}`, { headers: DEV })).json();
    expect(session.artifacts).toEqual([]);
  });

  it('nikon (a reader without write_file) reads the project but cannot write a report into it', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'toolu_read', name: 'read_file', input: { path: 'src/secret.ts' } },
          { id: 'toolu_write', name: 'write_file', input: { path: 'reports/written-by-a-reader.md', content: '# Written by a reader\n' } },
        ],
      },
      { text: 'Read it; could not write.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'nikon', project_id: PROJECT, message: 'Review and write a report.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    const seen = resultsSeen(h, 1);
    expect(seen.toolu_read).toEqual({ is_error: false, content: '1\texport const token = "s3cr3t";' });
    expect(seen.toolu_write).toEqual({ is_error: true, content: expect.stringContaining('Tool "write_file" is not granted to agent "nikon"') });
    const report = await fetch(`${h.url}/api/v2/projects/${PROJECT}/reports/written-by-a-reader.md`, { headers: DEV });
    expect(report.status).toBe(404);
  });
});
