import { describeFailure } from '@zero/agent/loop/end-run';
import { log } from '@zero/agent/log/log';
import type { SessionRunnerDeps } from './runner-deps';
import type { ArtifactStore } from '../store/artifact-store';
import { BlobStore } from '../files/blob-store';
import { readSessionRecord } from '../store/session-record';
import { stopRun } from './stop-run';

/** The most waiting messages read for their attachments (the inbox holds far fewer). */
const INBOX_READ = 1_000;

/**
 * Deletes a session for good: stops its run, removes its items and objects, and lets go of the
 * uploaded bytes it held (its messages' attachments on every branch and in its inbox, its file
 * resources, removed ones too), so a blob no file or other session holds is deleted with it. A session
 * with forks is refused (409) before anything is touched, its run included: its forks read its records.
 */
export async function deleteSession(deps: Pick<SessionRunnerDeps, 'sessions' | 'artifacts' | 'leases' | 'runs'>, id: string): Promise<void> {
  await deps.sessions.refuseIfForked(id);
  const lease = await deps.leases.inspect(id);
  if (lease?.active && lease.run_id) await stopRun(deps, id, lease.run_id, 'cancelled');
  const referenced = await referencedBlobs(deps, id);
  await deps.sessions.deleteSession(id);
  await releaseSessionBlobs(deps.artifacts, id, referenced);
}

/**
 * Lets go of every blob the session holds: those its marks by holder list (read now, after its items
 * are gone, so a message accepted meanwhile is counted) and `known` (holds recorded before those marks
 * existed). The session is gone already, so a release that fails is logged, not thrown: its bytes stay.
 */
export async function releaseSessionBlobs(artifacts: ArtifactStore, sessionId: string, known: Iterable<string> = []): Promise<void> {
  const blobs = new BlobStore(artifacts);
  const holder = `session:${sessionId}`;
  const marked = new Set(await blobs.heldBy(holder));
  // What its marks list it holds; of the others (a fork's log shows its parent's attachments, which the fork does not hold), only what it does.
  const unmarked = [...new Set(known)].filter((sha256) => !marked.has(sha256));
  const results = await Promise.allSettled([
    ...[...marked].map((sha256) => blobs.release(sha256, holder)),
    ...unmarked.map(async (sha256) => (await blobs.holds(sha256, holder)) && blobs.release(sha256, holder)),
  ]);
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  if (failed.length) log.warn('blobs of a deleted session not released', { session_id: sessionId, failed: failed.length, of: results.length, error: describeFailure(failed[0], []).message });
}

/** The hashes the session's messages (every branch, and its inbox) and record name: what it held before holds were marked by holder too. */
async function referencedBlobs(deps: Pick<SessionRunnerDeps, 'sessions' | 'artifacts'>, id: string): Promise<Set<string>> {
  const [messages, waiting, record] = await Promise.all([deps.sessions.readKind(id, 'user_message'), deps.sessions.peekInbox(id, INBOX_READ), readSessionRecord(deps.artifacts, id)]);
  const referenced = new Set<string>();
  for (const m of messages) for (const a of m.attachments ?? []) referenced.add(a.sha256);
  for (const m of waiting) for (const a of m.attachments ?? []) referenced.add(a.sha256);
  for (const resource of record?.resources ?? []) if (resource.type === 'file') referenced.add(resource.sha256);
  return referenced;
}
