import type { SessionRunnerDeps } from './runner-deps';
import { BlobStore } from '../files/blob-store';
import { readSessionRecord } from '../store/session-record';
import { stopRun } from './stop-run';

/** The most waiting messages read for their attachments (the inbox holds far fewer). */
const INBOX_READ = 1_000;

/**
 * Deletes a session for good: stops its run, removes its items and objects, and lets go of the
 * uploaded bytes it held (its messages' attachments, those of every branch and of messages still
 * waiting, and its file resources), so a blob no one else holds is deleted with it. A session with
 * forks is refused (409) before anything is touched: its forks read its records and attachments.
 */
export async function deleteSession(deps: Pick<SessionRunnerDeps, 'sessions' | 'artifacts' | 'leases' | 'runs'>, id: string): Promise<void> {
  const lease = await deps.leases.inspect(id);
  if (lease?.active && lease.run_id) await stopRun(deps, id, lease.run_id, 'cancelled');
  const held = await heldBlobs(deps, id);
  await deps.sessions.deleteSession(id);
  const blobs = new BlobStore(deps.artifacts);
  const holder = `session:${id}`;
  // A fork's log shows its parent's attachments, which the fork does not hold: only what this session holds is let go.
  await Promise.all([...held].map(async (sha256) => (await blobs.holds(sha256, holder)) && blobs.release(sha256, holder)));
}

/** The hashes the session may hold: attachments in its log (every branch) and inbox, and its file resources. */
async function heldBlobs(deps: Pick<SessionRunnerDeps, 'sessions' | 'artifacts'>, id: string): Promise<Set<string>> {
  const [records, waiting, record] = await Promise.all([deps.sessions.readAllBranches(id), deps.sessions.peekInbox(id, INBOX_READ), readSessionRecord(deps.artifacts, id).catch(() => undefined)]);
  const held = new Set<string>();
  for (const r of records) if (r.kind === 'user_message') for (const a of r.attachments ?? []) held.add(a.sha256);
  for (const m of waiting) for (const a of m.attachments ?? []) held.add(a.sha256);
  for (const resource of record?.resources ?? []) if (resource.type === 'file') held.add(resource.sha256);
  return held;
}
