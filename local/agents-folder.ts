import { watch } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { createS3Client, type StoreConfig } from '@zero/runtime/store/clients';
import type { AgentLoadError } from '@zero/agent/definitions/definition';

const PREFIX = 'agents/';

export interface AgentsMirrored {
  /** The file names in the folder, now in the bucket. */
  agents: string[];
  /** Objects deleted because their file is gone. */
  removed: string[];
}

/**
 * Makes the bucket's `agents/` prefix a copy of `dir/*.md`: every file is
 * uploaded, and an agent whose file was deleted is deleted from the bucket
 * too (otherwise it would be served forever).
 */
export async function mirrorAgents(store: StoreConfig, dir: string): Promise<AgentsMirrored> {
  const s3 = createS3Client(store);
  const bucket = new ArtifactStore(s3, store.bucket);
  try {
    const agents = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort();
    for (const name of agents) await bucket.put(`${PREFIX}${name}`, await readFile(join(dir, name)), 'text/markdown');
    const stale = (await bucket.list(PREFIX))
      .map((object) => object.key)
      .filter((key) => key.endsWith('.md') && !key.slice(PREFIX.length).includes('/') && !agents.includes(key.slice(PREFIX.length)));
    for (const key of stale) await s3.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: key }));
    return { agents, removed: stale.map((key) => key.slice(PREFIX.length)) };
  } finally {
    s3.destroy();
  }
}

export interface AgentsWatcher {
  close(): void;
}

/**
 * Mirrors `dir` into the bucket after every burst of changes (an editor's
 * save is often several events: write, rename, chmod), one mirror at a time.
 * Must not throw: a failed mirror is reported to `onError` and retried with
 * the next change.
 */
export function watchAgents(
  store: StoreConfig,
  dir: string,
  handlers: { onMirrored(result: AgentsMirrored): void; onError(error: unknown): void },
  debounceMs = 150,
): AgentsWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return;
    }
    running = mirrorAgents(store, dir)
      .then(handlers.onMirrored, handlers.onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const watcher = watch(dir, (_event, name) => {
    if (name && !name.endsWith('.md')) return;
    clearTimeout(timer);
    timer = setTimeout(run, debounceMs);
  });
  watcher.on('error', handlers.onError);
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}

/**
 * The agents of the folder as `npm start` lists them: the files that loaded, then each one that
 * did not with its field and what is wrong, so a broken file never reads as loaded.
 */
export function describeAgents(files: readonly string[], errors: readonly AgentLoadError[]): string {
  const name = (file: string) => file.replace(/^agents\//, '').replace(/\.md$/, '');
  const broken = new Map(errors.map((error) => [name(error.file), error]));
  const loaded = files.map(name).filter((agent) => !broken.has(agent));
  // By name, so the line reads the same on every start (the catalog loads files in no set order).
  const failures = [...broken].sort(([a], [b]) => a.localeCompare(b)).map(([agent, e]) => `${agent} (${e.message.startsWith(e.field) ? '' : `${e.field}: `}${e.message.split('\n')[0]})`);
  return `${loaded.join(', ') || '(none)'}${failures.length ? `; not loaded: ${failures.join('; ')}` : ''}`;
}
