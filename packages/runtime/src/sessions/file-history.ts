import type { LogRecord } from '@zero/agent/records/log-record';
import { normalizeProjectPath, projectKey } from '../projects/paths';
import type { SessionRewind } from '../store/items/session-rewind';

/** What a file of the written area was after one write: its text, gone, or something the log cannot give back. */
export type FileState = { kind: 'text'; content: string } | { kind: 'absent' } | { kind: 'unknown'; reason: string };

/** One change of a file: by a tool call of a run (`run_id`, `tool_call_id`) or by a rewind (`rewind_by`). */
export interface FileVersion {
  /** Where it stands among the log's records: a record's `seq`, or a rewind's last record + 0.5. */
  position: number;
  state: FileState;
  run_id?: string;
  tool_call_id?: string;
  rewind_by?: string;
}

/** A file of the session's written area and its versions, oldest first. */
export interface FileHistory {
  key: string;
  path: string;
  project_id?: string;
  versions: FileVersion[];
}

/** Tools that change the written area and how a call of each is replayed. */
const WRITERS = new Set(['write_file', 'edit_file', 'delete_path', 'render_report']);

interface Call {
  name: string;
  input: Record<string, unknown>;
  run_id: string;
}

/**
 * The versions of every file a session's own records wrote, replayed from the log: each
 * `write_file`, `edit_file` and `delete_path` call that succeeded (its result is in the log and not
 * an error) is a version at its result's record, and each rewind is one at the point it was made.
 * A `render_report` PDF is a version whose content the log does not hold (`unknown`), as is an edit
 * of one. `records`: the session's own records in log order, every branch (what the files went
 * through, whichever branch is active); `projectId`: the session's project, where a report call
 * without `project_id` wrote.
 */
export function fileHistories(sessionId: string, projectId: string | undefined, records: readonly LogRecord[], rewinds: readonly SessionRewind[]): Map<string, FileHistory> {
  const calls = new Map<string, Call>();
  const files = new Map<string, FileHistory>();
  const fileOf = (call: Call): FileHistory | undefined => {
    const located = locate(sessionId, projectId, call.input);
    if (!located) return undefined;
    let file = files.get(located.key);
    if (!file) files.set(located.key, (file = { ...located, versions: [] }));
    return file;
  };

  const changes: { position: number; apply: () => void }[] = [];
  for (const record of records) {
    if (record.kind === 'assistant') {
      for (const block of record.content) {
        if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string' && WRITERS.has(block.name) && isObject(block.input)) {
          calls.set(block.id, { name: block.name, input: block.input, run_id: record.run_id });
        }
      }
    }
    const results = record.kind === 'tool_result' ? [record] : record.kind === 'tool_results' ? record.results : [];
    for (const result of results) {
      const call = calls.get(result.tool_use_id);
      if (!call || result.is_error) continue;
      const position = record.seq;
      changes.push({
        position,
        apply: () => {
          const file = fileOf(call);
          if (!file) return;
          const before = stateAt(file, position);
          file.versions.push({ position, state: replay(call, before), run_id: call.run_id, tool_call_id: result.tool_use_id });
        },
      });
    }
  }
  for (const rewind of rewinds) {
    const position = rewind.after_log_seq + 0.5;
    changes.push({
      position,
      apply: () => {
        for (const changed of rewind.files) {
          const file = files.get(changed.key);
          if (file) file.versions.push({ position, state: stateAt(file, rewind.at_event), rewind_by: rewind.by.id });
        }
      },
    });
  }
  // Stable: rewinds made after the same record keep the order they were made in.
  changes.sort((a, b) => a.position - b.position);
  for (const change of changes) change.apply();
  return files;
}

/** A file's state right after record `position`. */
export function stateAt(file: FileHistory, position: number): FileState {
  return file.versions.filter((v) => v.position <= position).at(-1)?.state ?? { kind: 'absent' };
}

/** The file a writing call names, as the tool resolved it (see `tools/writable-area.ts`); undefined for a path the tool refused. */
function locate(sessionId: string, projectId: string | undefined, input: Record<string, unknown>): Omit<FileHistory, 'versions'> | undefined {
  try {
    const path = normalizeProjectPath(String(input.path));
    const [area, ...rest] = path.split('/');
    const inner = rest.join('/');
    if (area === 'artifacts') return { key: `sessions/${sessionId}/artifacts/${inner}`, path };
    const project = typeof input.project_id === 'string' ? input.project_id : projectId;
    if (area === 'reports' && project) return { key: projectKey(project, 'reports', inner), path, project_id: project };
  } catch {
    // A path the tool refused wrote nothing (its result was an error and is skipped before this).
  }
  return undefined;
}

/** What a successful call made of the file, as the tool does it. */
function replay(call: Call, before: FileState): FileState {
  const { input } = call;
  switch (call.name) {
    case 'write_file':
      return typeof input.content === 'string' ? { kind: 'text', content: input.content } : { kind: 'unknown', reason: 'its write_file call has no text content' };
    case 'delete_path':
      return { kind: 'absent' };
    case 'edit_file': {
      if (before.kind !== 'text') return { kind: 'unknown', reason: before.kind === 'unknown' ? before.reason : 'edit_file changed a file the log has no content of' };
      const { old_string: from, new_string: to } = input;
      if (typeof from !== 'string' || typeof to !== 'string' || !before.content.includes(from)) return { kind: 'unknown', reason: 'an edit_file call could not be replayed on the file' };
      const content = input.replace_all === true ? before.content.split(from).join(to) : before.content.replace(from, () => to);
      return { kind: 'text', content };
    }
    default:
      return { kind: 'unknown', reason: `${call.name} wrote it; its bytes are not in the log` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
