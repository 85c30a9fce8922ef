import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filesRewoundSchema } from '@zero/agent/wire';
import { getJson, postJson, type Harness } from './support/harness';
import { startHarnessWithUsers, type UserHeaders } from './support/members';
import { readSse, type ReceivedEvent } from './support/sse';

const api = (h: Harness, path: string) => `${h.url}/api/v2${path}`;

interface HistoryRecord {
  seq: number;
  kind: string;
  run_id: string;
}

describe('rewinding the files a session wrote', () => {
  let h: Harness;
  let alice: UserHeaders, bob: UserHeaders, carol: UserHeaders;
  beforeAll(async () => ({ h, alice, bob, carol } = await startHarnessWithUsers(['alice', 'bob', 'carol'])));
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  const history = async (id: string) => (await getJson(api(h, `/sessions/${id}`), alice)).json.history as HistoryRecord[];
  const artifact = async (id: string, path: string, headers = alice) => {
    const response = await fetch(api(h, `/sessions/${id}/artifacts/${path}`), { headers });
    return { status: response.status, text: await response.text() };
  };
  const run = async (id: string, message: string, headers: Record<string, string>, ...calls: { name: string; input: Record<string, unknown> }[]) => {
    h.fake.script({ text: 'Working. ', toolCalls: calls }, { text: 'Done.' });
    const answer = await postJson(api(h, '/chat'), { session_id: id, message }, headers);
    expect(answer.json, JSON.stringify(answer.json)).toMatchObject({ status: 'completed' });
  };

  it('a run writes and edits files; rewinding to a point between gives each file its content then, and everyone sees it', async () => {
    const id = (await postJson(api(h, '/sessions'), { title: 'shared', agent_id: 'commander' }, alice)).json.session.session_id as string;
    for (const [user, role] of [['bob', 'editor'], ['carol', 'viewer']] as const) {
      expect((await fetch(api(h, `/sessions/${id}/members/${user}`), { method: 'PUT', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ role }) })).status).toBe(201);
    }
    await run(id, 'draft the notes', alice, { name: 'write_file', input: { path: 'artifacts/notes.md', content: 'Status: draft\nOwner: TBD\n' } });
    const point = (await history(id)).at(-1)!.seq;
    await run(
      id,
      'finish them',
      alice,
      { name: 'edit_file', input: { path: 'artifacts/notes.md', old_string: 'Status: draft', new_string: 'Status: final' } },
      { name: 'write_file', input: { path: 'artifacts/later.md', content: 'written after the point' } },
    );
    expect((await artifact(id, 'notes.md')).text).toBe('Status: final\nOwner: TBD\n');
    expect((await artifact(id, 'later.md')).text).toBe('written after the point');

    // Carol, a viewer, may not rewind; Bob, an editor, may not undo what Alice's runs wrote. Nothing changes.
    const byViewer = await postJson(api(h, `/sessions/${id}/rewind`), { at_event: point }, carol);
    expect(byViewer.status).toBe(403);
    const byOtherEditor = await postJson(api(h, `/sessions/${id}/rewind`), { at_event: point }, bob);
    expect(byOtherEditor.status).toBe(403);
    expect(byOtherEditor.json.error.message).toContain('their own runs');
    // A point past the history or not a number is refused naming the field.
    for (const at_event of [10_000, 'middle', -1]) {
      const refused = await postJson(api(h, `/sessions/${id}/rewind`), { at_event }, alice);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.json)).toContain('at_event');
    }
    expect((await artifact(id, 'later.md')).status).toBe(200);

    // Carol follows the session live: she sees the rewind.
    const controller = new AbortController();
    const stream = await fetch(api(h, `/sessions/${id}/events?after=0`), { headers: carol, signal: controller.signal });
    const following = (async () => {
      for await (const event of readSse(stream, controller.signal)) if (event.type === 'files_rewound') return event;
      return undefined;
    })();

    const rewound = await postJson(api(h, `/sessions/${id}/rewind`), { at_event: point }, alice);
    expect(rewound.status, JSON.stringify(rewound.json)).toBe(200);
    const answer = filesRewoundSchema.parse(rewound.json);
    expect(answer).toMatchObject({ at_event: point, by: { id: 'alice' }, skipped: [] });
    expect(answer.files).toEqual(
      expect.arrayContaining([
        { path: 'artifacts/notes.md', action: 'restored', bytes: Buffer.byteLength('Status: draft\nOwner: TBD\n') },
        { path: 'artifacts/later.md', action: 'deleted' },
      ]),
    );
    expect(answer.files).toHaveLength(2);

    // Read back through the API: the content as it was at the point; the file created later is gone.
    expect(await artifact(id, 'notes.md', carol)).toEqual({ status: 200, text: 'Status: draft\nOwner: TBD\n' });
    expect((await artifact(id, 'later.md', carol)).status).toBe(404);
    const listed = (await getJson(api(h, `/sessions/${id}`), alice)).json.artifacts as { path: string; bytes: number }[];
    expect(listed.map((a) => a.path)).toEqual(['artifacts/notes.md']);

    const seen = (await following) as Extract<ReceivedEvent, { type: 'files_rewound' }>;
    controller.abort();
    expect(seen).toMatchObject({ type: 'files_rewound', at_event: point, by: { id: 'alice', name: 'Alice' }, files: answer.files });

    // The next run edits what the rewind restored, and a rewind to the end of the second run brings its files back:
    // a rewind is itself a version of each file it changed.
    const second = (await history(id)).at(-1)!.seq;
    await run(id, 'reword', alice, { name: 'edit_file', input: { path: 'artifacts/notes.md', old_string: 'Owner: TBD', new_string: 'Owner: Ada' } });
    expect((await artifact(id, 'notes.md')).text).toBe('Status: draft\nOwner: Ada\n');
    expect((await postJson(api(h, `/sessions/${id}/rewind`), { at_event: second }, alice)).status).toBe(200);
    expect((await artifact(id, 'notes.md')).text).toBe('Status: final\nOwner: TBD\n');
    expect((await artifact(id, 'later.md')).text).toBe('written after the point');
  });

  it('an editor rewinds what their own runs wrote', async () => {
    const id = (await postJson(api(h, '/sessions'), { title: 'mine', agent_id: 'commander' }, alice)).json.session.session_id as string;
    expect((await fetch(api(h, `/sessions/${id}/members/bob`), { method: 'PUT', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'editor' }) })).status).toBe(201);
    await run(id, 'keep this', alice, { name: 'write_file', input: { path: 'artifacts/alice.md', content: 'by alice' } });
    const point = (await history(id)).at(-1)!.seq;
    await run(id, 'my turn', bob, { name: 'write_file', input: { path: 'artifacts/bob.md', content: 'by bob' } }, { name: 'edit_file', input: { path: 'artifacts/alice.md', old_string: 'alice', new_string: 'bob' } });
    expect((await artifact(id, 'alice.md')).text).toBe('by bob');

    const rewound = await postJson(api(h, `/sessions/${id}/rewind`), { at_event: point }, bob);
    expect(rewound.status, JSON.stringify(rewound.json)).toBe(200);
    expect((await artifact(id, 'alice.md')).text).toBe('by alice');
    expect((await artifact(id, 'bob.md')).status).toBe(404);
    // Before Alice's run her file did not exist: undoing it is hers (or an owner's) to do, not Bob's.
    expect((await postJson(api(h, `/sessions/${id}/rewind`), { at_event: 0 }, bob)).status).toBe(403);
  });
});
