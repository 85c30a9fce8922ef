import { randomUUID } from 'node:crypto';
import { ZeroError, conflict, forbidden } from '@zero/agent/errors';
import type { LogRecord } from '@zero/agent/records/log-record';
import type { FilesRewound, RewoundFile } from '@zero/agent/wire';
import type { User } from '../auth/roles';
import { contentTypeOf } from '../projects/project-store';
import type { SessionRewind } from '../store/items/session-rewind';
import { requireAccess } from './access';
import { fileHistories, stateAt, type FileHistory, type FileState } from './file-history';
import type { SessionRunnerDeps } from './runner-deps';

/**
 * Rewinds the session's written area (its `artifacts/` and the reports it wrote) to history
 * record `atEvent`: each file a run wrote after that record gets back its content right after it,
 * or is deleted when it did not exist then. The content comes from the log (each write's record
 * holds it, see `file-history.ts`); a file whose content at the point the log does not hold (a
 * PDF) is left as it is and named in `skipped`.
 *
 * Who may: an owner, or an editor when every change undone was made by their own runs (or their
 * own rewinds); a viewer never. Runs under the session's lease, so no run writes meanwhile (a run
 * in progress: 409). Recorded beside the log (a later rewind replays it) and announced to every
 * follower of the session as a `files_rewound` event.
 */
export async function rewindFiles(
  deps: Pick<SessionRunnerDeps, 'sessions' | 'leases' | 'artifacts' | 'instanceId'>,
  user: User,
  sessionId: string,
  atEvent: number,
): Promise<FilesRewound> {
  const { session, member } = await requireAccess(deps.sessions, sessionId, user, 'editor');
  const rewindId = `rewind_${randomUUID()}`;
  const acquired = await deps.leases.acquire(sessionId, deps.instanceId, rewindId);
  if (!acquired) throw conflict('a run of this session is in progress; rewind when it is over (or cancel it)');
  const { lease } = acquired;
  try {
    if (acquired.takeover) throw conflict("the session's last run stopped without finishing; send a message (it is carried on) before rewinding");
    const last = await deps.sessions.lastLogSeq(sessionId);
    if (atEvent > last) throw new ZeroError('invalid_request', `at_event ${atEvent} is past the session's last history record (${last})`, { field: 'at_event' });
    const forkPoint = session.forked_from?.log_seq ?? 0;
    if (atEvent < forkPoint) throw new ZeroError('invalid_request', `at_event ${atEvent} is before this fork's first record (${forkPoint + 1}); a fork's written area starts empty at its fork point`, { field: 'at_event' });
    const [records, rewinds] = await Promise.all([deps.sessions.readAllBranches(sessionId), deps.sessions.listRewinds(sessionId)]);
    // A fork's written area is its own: the writes of its parent's records went to the parent's.
    const own = records.filter((r) => r.seq > forkPoint);
    const histories = [...fileHistories(sessionId, session.project_id, own, rewinds).values()];

    const changes = histories.flatMap((file) => planned(file, atEvent));
    if (member.role !== 'owner') {
      const authors = runAuthors(records);
      const others = changes.flatMap((c) => c.file.versions.filter((v) => v.position > atEvent)).filter((v) => (v.rewind_by ?? (v.run_id && authors.get(v.run_id))) !== user.id);
      if (others.length) throw forbidden('an editor may rewind only what their own runs wrote; a change after this point was made by someone else (an owner may rewind it)');
    }

    const at = new Date().toISOString();
    const files: (RewoundFile & { key: string })[] = [];
    const skipped: SessionRewind['skipped'] = [];
    for (const { file, target } of changes) {
      const where = { path: file.path, ...(file.project_id ? { project_id: file.project_id } : {}) };
      if (target.kind === 'unknown') {
        skipped.push({ ...where, reason: target.reason });
      } else if (target.kind === 'absent') {
        await deps.artifacts.delete(file.key);
        await deps.sessions.forgetArtifact(sessionId, file.key);
        files.push({ key: file.key, ...where, action: 'deleted' });
      } else {
        const bytes = Buffer.byteLength(target.content);
        const writer = file.versions.filter((v) => v.position <= atEvent && v.run_id).at(-1);
        await deps.artifacts.put(file.key, target.content, contentTypeOf(file.path));
        await deps.sessions.recordArtifact(sessionId, { key: file.key, ...where, bytes, run_id: writer?.run_id ?? rewindId, tool_call_id: writer?.tool_call_id ?? rewindId, at });
        files.push({ key: file.key, ...where, action: 'restored', bytes });
      }
    }

    const by = { id: user.id, ...(user.name ? { name: user.name } : {}) };
    // Taken only now: a refused rewind leaves no gap in the event log.
    const { first: eventSeq } = await deps.leases.allocate(lease, 'event', 1);
    await deps.sessions.recordRewind(sessionId, { event_seq: eventSeq, after_log_seq: last, at_event: atEvent, files, skipped, by, at });
    const rewound: FilesRewound = { at_event: atEvent, files: files.map(({ key: _key, ...file }) => file), skipped, by, at };
    await deps.sessions.putEvents(sessionId, { seq: eventSeq, run_id: rewindId, events: [{ type: 'files_rewound', ...rewound }] });
    return rewound;
  } finally {
    await deps.leases.release(lease);
  }
}

/** The change a rewind to `atEvent` makes to a file: none when nothing changed it after the point, or when it is already as it was then. */
function planned(file: FileHistory, atEvent: number): { file: FileHistory; target: FileState }[] {
  if (!file.versions.some((v) => v.position > atEvent)) return [];
  const target = stateAt(file, atEvent);
  const now = file.versions.at(-1)!.state;
  const same = target.kind === now.kind && (target.kind !== 'text' || (now.kind === 'text' && now.content === target.content));
  return same && target.kind !== 'unknown' ? [] : [{ file, target }];
}

/** Who started each run: its message's author; a delegated run's, the run that delegated it. */
function runAuthors(records: readonly LogRecord[]): Map<string, string | undefined> {
  const authors = new Map<string, string | undefined>();
  for (const record of records) {
    if (record.kind === 'user_message' && !record.parent_run_id) authors.set(record.run_id, record.author?.id);
  }
  for (const record of records) {
    if (record.parent_run_id && !authors.has(record.run_id)) authors.set(record.run_id, authors.get(record.parent_run_id));
  }
  return authors;
}
