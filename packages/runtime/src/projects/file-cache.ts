import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { ZeroError, notFound } from '@zero/agent/errors';
import { projectKey } from './paths';
import { mapLimit, type ProjectObject, type ProjectStore } from './project-store';

export interface FileCacheOptions {
  /** Where file bodies live; Lambda's `/tmp` by default. */
  root?: string;
  /** A manifest older than this is listed again even when the revision is unchanged (writes that bypassed the store). */
  maxAgeMs?: number;
  /** Projects bigger than this are refused rather than filling the disk. */
  maxProjectBytes?: number;
  /** Parallel GETs when files are fetched. */
  concurrency?: number;
}

/** A project's tree as of one revision: the listing, and bodies read from local disk. */
export interface ProjectSnapshot {
  projectId: string;
  rev: string;
  files: ProjectObject[];
  /** Reads a file of this snapshot from local disk (fetching it first if `materialize` was not called). */
  read(path: string): Promise<Buffer>;
}

interface Entry {
  rev: string;
  listedAt: number;
  files: ProjectObject[];
  /** path → ETag of the body on disk. */
  onDisk: Map<string, string>;
}

/**
 * Project trees cached in the function's `/tmp`, keyed by the objects' ETags.
 * A warm call costs one GET of `project.json` (the revision); a changed
 * revision costs one listing and a GET per changed file, never the whole tree.
 */
export class ProjectFileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly root: string;

  constructor(
    private readonly projects: ProjectStore,
    private readonly options: FileCacheOptions = {},
  ) {
    this.root = options.root ?? join(tmpdir(), 'zero-project-cache');
  }

  /** The listing of a project's files, current as of one revision read. */
  async manifest(projectId: string): Promise<ProjectSnapshot> {
    const entry = await this.entry(projectId);
    return this.snapshotOf(projectId, entry);
  }

  /** Like manifest, with every listed file (or those `want` keeps) present on local disk. */
  async materialize(projectId: string, want: (file: ProjectObject) => boolean = () => true, signal?: AbortSignal): Promise<ProjectSnapshot> {
    const entry = await this.entry(projectId);
    const needed = entry.files.filter((f) => want(f) && entry.onDisk.get(f.path) !== f.etag);
    await mapLimit(needed, this.options.concurrency ?? 32, (f) => this.fetch(projectId, entry, f, signal));
    return this.snapshotOf(projectId, entry);
  }

  private snapshotOf(projectId: string, entry: Entry): ProjectSnapshot {
    return {
      projectId,
      rev: entry.rev,
      files: entry.files,
      read: async (path) => {
        const file = entry.files.find((f) => f.path === path);
        if (!file) throw notFound(`no file "${path}" in project "${projectId}"`);
        if (entry.onDisk.get(path) !== file.etag) await this.fetch(projectId, entry, file);
        return readFile(this.localPath(projectId, path, entry.onDisk.get(path)!));
      },
    };
  }

  private async entry(projectId: string): Promise<Entry> {
    const pending = this.inflight.get(projectId);
    if (pending) return pending;
    const promise = this.refresh(projectId).finally(() => this.inflight.delete(projectId));
    this.inflight.set(projectId, promise);
    return promise;
  }

  private async refresh(projectId: string): Promise<Entry> {
    const meta = await this.projects.requireProject(projectId);
    const cached = this.entries.get(projectId);
    if (cached && cached.rev === meta.rev && Date.now() - cached.listedAt < (this.options.maxAgeMs ?? 5 * 60_000)) return cached;
    const files = (await this.projects.list(projectId, 'files')).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const bytes = files.reduce((n, f) => n + f.size, 0);
    const cap = this.options.maxProjectBytes ?? 400 * 1024 * 1024;
    if (bytes > cap) throw new ZeroError('limit_reached', `project "${projectId}" holds ${bytes} bytes, over the ${cap}-byte limit for searching`);
    const onDisk = cached?.onDisk ?? new Map<string, string>();
    const listed = new Set(files.map((f) => f.path));
    for (const [path, etag] of [...onDisk]) {
      if (listed.has(path)) continue;
      onDisk.delete(path);
      await rm(this.localPath(projectId, path, etag), { force: true });
    }
    const entry: Entry = { rev: meta.rev, listedAt: Date.now(), files, onDisk };
    this.entries.set(projectId, entry);
    return entry;
  }

  private async fetch(projectId: string, entry: Entry, file: ProjectObject, signal?: AbortSignal): Promise<void> {
    const { s3, bucket } = this.projects.artifacts;
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: projectKey(projectId, 'files', file.path) }), { abortSignal: signal });
    const body = await object.Body!.transformToByteArray();
    const etag = object.ETag ?? file.etag;
    const local = this.localPath(projectId, file.path, etag);
    await mkdir(join(local, '..'), { recursive: true });
    await writeFile(local, body);
    const previous = entry.onDisk.get(file.path);
    entry.onDisk.set(file.path, etag);
    if (previous && previous !== etag) await rm(this.localPath(projectId, file.path, previous), { force: true });
  }

  /**
   * Bodies are stored under hashed names (no path from S3 ever becomes a path
   * on disk), and the name includes the ETag so that two caches sharing `/tmp`
   * never read each other's versions.
   */
  private localPath(projectId: string, path: string, etag: string): string {
    const project = createHash('sha256').update(projectId).digest('hex').slice(0, 24);
    const name = createHash('sha256').update(`${path}\0${etag}`).digest('hex');
    return join(this.root, project, name.slice(0, 2), name);
  }
}
