import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FileResource } from '../store/session-record';
import type { ArtifactStore } from '../store/artifact-store';
import { BlobStore } from './blob-store';

/**
 * Writes each file resource's bytes into a run's working copy at its `mount_path` while the copy is
 * built (before any command has seen it). The mount path passed the project normaliser when the
 * resource was attached (no "..", not absolute). Throws naming the file when its bytes are gone.
 */
export async function mountFiles(building: string, resources: readonly FileResource[], artifacts: ArtifactStore): Promise<void> {
  const blobs = new BlobStore(artifacts);
  for (const resource of resources) {
    const bytes = await blobs.read(resource.sha256);
    if (!bytes) throw new Error(`the session's file ${resource.file_id} is gone, so it cannot be mounted at /workspace/${resource.mount_path}`);
    const target = join(building, resource.mount_path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
}
