import { createHash } from 'node:crypto';
import type { ArtifactStore } from '../store/artifact-store';

/** A stored blob: its content's SHA-256 (hex) and size. */
export interface BlobRef {
  sha256: string;
  size: number;
}

const BLOBS = 'blobs/sha256/';
const blobKey = (sha256: string) => `${BLOBS}${sha256}`;
/** Who still needs a blob: one empty object per holder (a file, a session), so the last one out deletes it. */
const refPrefix = (sha256: string) => `blobs/refs/${sha256}/`;
const refKey = (sha256: string, holder: string) => `${refPrefix(sha256)}${encodeURIComponent(holder)}`;
/** What a holder holds, the same marks by holder: a session being deleted finds every blob it held, whatever held it. */
const heldPrefix = (holder: string) => `blobs/held/${encodeURIComponent(holder)}/`;
const heldKey = (sha256: string, holder: string) => `${heldPrefix(holder)}${sha256}`;

/**
 * Uploaded bytes (Files API uploads, message attachments), stored once by content hash at
 * `blobs/sha256/<hex>`: the same image sent twice, or uploaded and then attached, is one object.
 * Holders (`file:<id>`, `session:<id>`) are recorded beside it; a blob is deleted when its last
 * holder lets go. A session's holder marks also say which blobs its members may read.
 */
export class BlobStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  /**
   * Stores the bytes (an identical blob is written over with itself), for `holder` when one is named; returns
   * its hash. Another holder's release may run between the put and the hold, see no holder and delete the
   * bytes: once held, they are checked and put again if they are gone (the hold now keeps them).
   */
  async put(bytes: Uint8Array, mediaType: string, holder?: string): Promise<BlobRef> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await this.artifacts.put(blobKey(sha256), bytes, mediaType);
    if (holder) {
      await this.hold(sha256, holder);
      if (!(await this.artifacts.exists(blobKey(sha256)))) await this.artifacts.put(blobKey(sha256), bytes, mediaType);
    }
    return { sha256, size: bytes.byteLength };
  }

  /** Records that `holder` needs the blob (idempotent). */
  async hold(sha256: string, holder: string): Promise<void> {
    await Promise.all([this.artifacts.put(refKey(sha256, holder), ''), this.artifacts.put(heldKey(sha256, holder), '')]);
  }

  /** The blobs `holder` holds, as far as its marks by holder say (holds recorded before those marks existed are not listed). */
  async heldBy(holder: string): Promise<string[]> {
    return (await this.artifacts.list(heldPrefix(holder))).map((o) => o.key.slice(heldPrefix(holder).length));
  }

  /** Whether `holder` holds the blob (a session member may read only what their session holds). */
  async holds(sha256: string, holder: string): Promise<boolean> {
    return (await this.artifacts.list(refKey(sha256, holder))).some((o) => o.key === refKey(sha256, holder));
  }

  /** The blob's bytes, or undefined when it is gone. */
  async read(sha256: string): Promise<Uint8Array | undefined> {
    return this.artifacts.getBytes(blobKey(sha256));
  }

  /** `holder` lets go of the blob; the last holder's release deletes it. */
  async release(sha256: string, holder: string): Promise<void> {
    await Promise.all([this.artifacts.delete(refKey(sha256, holder)), this.artifacts.delete(heldKey(sha256, holder))]);
    if ((await this.artifacts.list(refPrefix(sha256))).length === 0) await this.artifacts.delete(blobKey(sha256));
  }
}
