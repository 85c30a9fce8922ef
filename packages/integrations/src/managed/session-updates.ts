import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import type { ManagedEvent } from './event-mapper';

/**
 * A change made with `POST /v1/sessions/:id` (title, metadata), kept so the session's events show it
 * (`session.updated`). Each is its own object, `sessions/<id>/managed-updates/<seq>-<time>-<nonce>.json`,
 * under the session's prefix (deleting the session deletes them), never changed once written.
 * `after_seq`: the newest event batch stored when it was made; it shows after that batch's events.
 */
export const sessionUpdateSchema = z.object({
  v: z.literal(1),
  after_seq: z.number().int().nonnegative(),
  at: z.string(),
  /** Present when the update changed the title. */
  title: z.string().nullable().optional(),
  /** The whole metadata after the update; present when it changed and is not empty. */
  metadata: z.record(z.string(), z.string()).optional(),
});
export type SessionUpdate = z.infer<typeof sessionUpdateSchema>;

const prefix = (sessionId: string) => `sessions/${sessionId}/managed-updates/`;
/** After every event of its batch (an index no batch reaches). */
const AFTER_BATCH = 999_999;

/** Stores one update; its `session.updated` event shows in the list at once and in live streams within seconds. */
export async function writeSessionUpdate(artifacts: ArtifactStore, sessionId: string, update: SessionUpdate): Promise<void> {
  const name = `${String(update.after_seq).padStart(12, '0')}-${String(Date.parse(update.at)).padStart(15, '0')}-${randomBytes(4).toString('hex')}`;
  await artifacts.putJson(`${prefix(sessionId)}${name}.json`, sessionUpdateSchema.parse(update));
}

/**
 * The session's updates as `session.updated` events, oldest first, each with the cursor of its place in the
 * session's events. `known`: updates already read (by object key), not read again; one that does not read is left out.
 */
export async function readSessionUpdates(artifacts: ArtifactStore, sessionId: string, known = new Map<string, ManagedEvent>()): Promise<Map<string, ManagedEvent>> {
  const keys = (await artifacts.list(prefix(sessionId))).map((o) => o.key).sort();
  const out = new Map<string, ManagedEvent>();
  const perSeq = new Map<number, number>();
  for (const key of keys) {
    const seen = known.get(key);
    const update = seen ? undefined : sessionUpdateSchema.safeParse(await artifacts.getJson(key).catch(() => undefined));
    if (!seen && !update?.success) continue;
    const seq = seen ? seen.position.seq : update!.data!.after_seq;
    const k = perSeq.get(seq) ?? 0;
    perSeq.set(seq, k + 1);
    if (seen) {
      out.set(key, seen);
      continue;
    }
    const { at, title, metadata } = update!.data!;
    const name = key.slice(prefix(sessionId).length, -'.json'.length);
    out.set(key, {
      position: { seq, index: AFTER_BATCH },
      k: Math.min(k, 999),
      event: { id: `sevt_updated_${name.replaceAll('-', '_')}`, type: 'session.updated', processed_at: at, ...(title !== undefined ? { title } : {}), ...(metadata ? { metadata } : {}) },
    });
  }
  return out;
}
