import { createHash, randomUUID } from 'node:crypto';
import { GetObjectCommand, NoSuchKey } from '@aws-sdk/client-s3';
import * as z from 'zod';
import { ZeroError, notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '../store/artifact-store';
import { projectIdSchema, projectSchema, scannerSchema } from '@zero/agent/wire';
import { areaPrefix, pathFromKey, projectKey, type ProjectArea } from './paths';

/** `projects/<id>/project.json`: the project's summary and its files' revision, rewritten on every change to `files/`. */
export const projectMetaSchema = z.object({ v: z.literal(1), ...projectSchema.shape });
export type ProjectMeta = z.infer<typeof projectMetaSchema>;

/** One object of a project area. */
export interface ProjectObject {
  path: string;
  size: number;
  etag: string;
}

/** A file to write into a project's tree. */
export interface ProjectFileInput {
  path: string;
  body: Uint8Array;
  contentType?: string;
}

/**
 * How deep an analysis document may nest. Scanner output (SARIF and the like)
 * stays within a dozen levels; thousands of levels would overflow the stack
 * of JSON.stringify when the document is stored.
 */
export const MAX_ANALYSIS_DEPTH = 100;

/** One empty object per project, `project-index/<owner>/<repo>`, so projects are listed without walking their trees. */
const INDEX_PREFIX = 'project-index/';
const metaKey = (id: string) => `projects/${projectIdSchema.parse(id)}/project.json`;

/**
 * Projects in the bucket: `projects/<id>/files/<path>`, `analysis/<scanner>.json`
 * and `reports/…`. Every path goes through the one normaliser before any S3 call.
 */
export class ProjectStore {
  constructor(readonly artifacts: ArtifactStore) {}

  /**
   * Every project (or those of `only`) with its summary: one LIST of the
   * index, then a GET of each project's summary and a LIST of its analyses.
   * (An index prefix rather than a delimiter listing of `projects/`: s3rver
   * answers those incompletely.)
   */
  async listProjects(only?: readonly string[]): Promise<(ProjectMeta & { analyses: string[] })[]> {
    const ids = (only ?? (await this.artifacts.list(INDEX_PREFIX)).map((o) => o.key.slice(INDEX_PREFIX.length))).filter(
      (id) => projectIdSchema.safeParse(id).success,
    );
    const projects = await mapLimit(ids, 16, async (id) => {
      const meta = await this.getProject(id);
      return meta ? { ...meta, analyses: await this.listAnalyses(id) } : undefined;
    });
    return projects.filter((p) => p !== undefined).sort((a, b) => a.id.localeCompare(b.id));
  }

  async getProject(id: string): Promise<ProjectMeta | undefined> {
    const value = await this.artifacts.getJson(metaKey(id));
    const parsed = projectMetaSchema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  }

  /** Loads a project or fails with a 404. */
  async requireProject(id: string): Promise<ProjectMeta> {
    const meta = await this.getProject(id);
    if (!meta) throw notFound(`project "${id}" does not exist`, 'project_id');
    return meta;
  }

  /** Writes files (already checked by the caller or checked here), then gives the tree a new revision. */
  async putFiles(id: string, files: ProjectFileInput[], options: { concurrency?: number; upload?: boolean } = {}): Promise<ProjectMeta> {
    const keyed = files.map((f) => ({ ...f, key: projectKey(id, 'files', f.path) }));
    await mapLimit(keyed, options.concurrency ?? 16, (f) => this.artifacts.put(f.key, f.body, f.contentType ?? contentTypeOf(f.path)));
    const bytes = files.reduce((n, f) => n + f.body.byteLength, 0);
    return this.touch(id, options.upload ? { files: files.length, bytes, at: new Date().toISOString() } : undefined);
  }

  /**
   * Writes an uploaded tree: only the files whose content differs from what is
   * stored (see `changedFiles`), then a new revision recording the upload. Files
   * stored but absent from the tree stay, as with any upload.
   */
  async putTree(id: string, files: ProjectFileInput[]): Promise<{ project: ProjectMeta; uploaded: number; unchanged: number }> {
    const write = changedFiles(files, await this.storedHashes(id));
    await mapLimit(write, 32, (f) => this.artifacts.put(projectKey(id, 'files', f.path), f.body, f.contentType ?? contentTypeOf(f.path)));
    const bytes = files.reduce((n, f) => n + f.body.byteLength, 0);
    const project = await this.touch(id, { files: files.length, bytes, at: new Date().toISOString() });
    return { project, uploaded: write.length, unchanged: files.length - write.length };
  }

  /** Each stored file's content hash: its ETag without quotes (the MD5 of an object written in one PUT). */
  async storedHashes(id: string): Promise<Map<string, string>> {
    return new Map((await this.list(id, 'files')).map((o) => [o.path, o.etag.replace(/"/g, '')]));
  }

  /** Creates the project's summary or gives it a new revision; `source` is set by a hydrate and cleared by an archive upload. */
  async touch(id: string, lastUpload?: ProjectMeta['last_upload'], source?: ProjectMeta['source']): Promise<ProjectMeta> {
    const now = new Date().toISOString();
    const existing = await this.getProject(id);
    const meta: ProjectMeta = {
      v: 1,
      id,
      created_at: existing?.created_at ?? now,
      updated_at: now,
      rev: randomUUID(),
      ...(existing?.description ? { description: existing.description } : {}),
      ...((lastUpload ?? existing?.last_upload) ? { last_upload: lastUpload ?? existing?.last_upload } : {}),
      // A tree uploaded whole is no longer GitHub's at that commit; a single file written keeps the record.
      ...((source ?? (lastUpload ? undefined : existing?.source)) ? { source: source ?? existing?.source } : {}),
    };
    await this.artifacts.putJson(metaKey(id), meta);
    if (!existing) await this.artifacts.put(`${INDEX_PREFIX}${id}`, '', 'text/plain');
    return meta;
  }

  /** The objects of an area, optionally under a folder, each key checked again against the prefix. */
  async list(id: string, area: ProjectArea, folder = ''): Promise<ProjectObject[]> {
    const prefix = areaPrefix(id, area);
    const listed = await this.artifacts.list(folder ? `${prefix}${folder}/` : prefix);
    const out: ProjectObject[] = [];
    for (const o of listed) {
      const path = pathFromKey(prefix, o.key);
      if (path !== undefined) out.push({ path, size: o.size, etag: o.etag });
    }
    return out;
  }

  /** Reads up to `maxBytes` of an object; undefined when there is none. */
  async read(id: string, area: ProjectArea, path: string, maxBytes = 10 * 1024 * 1024, signal?: AbortSignal) {
    const key = projectKey(id, area, path);
    try {
      const object = await this.artifacts.s3.send(
        new GetObjectCommand({ Bucket: this.artifacts.bucket, Key: key, Range: `bytes=0-${maxBytes - 1}` }),
        { abortSignal: signal },
      );
      const body = await object.Body!.transformToByteArray();
      const total = totalSize(object.ContentRange) ?? object.ContentLength ?? body.byteLength;
      return { body, size: total, etag: object.ETag ?? '', contentType: object.ContentType, truncated: total > body.byteLength };
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (error instanceof NoSuchKey || name === 'NoSuchKey' || name === 'InvalidRange') {
        if (name === 'InvalidRange') return { body: new Uint8Array(), size: 0, etag: '', contentType: undefined, truncated: false };
        return undefined;
      }
      throw error;
    }
  }

  async putReport(id: string, path: string, body: string | Uint8Array, contentType = contentTypeOf(path)): Promise<string> {
    const key = projectKey(id, 'reports', path);
    await this.artifacts.put(key, body, contentType);
    return key;
  }

  /** Stores a scanner's document; one nested deeper than MAX_ANALYSIS_DEPTH is refused with a 400. */
  async putAnalysis(id: string, scanner: string, document: unknown): Promise<void> {
    if (nestedDeeperThan(document, MAX_ANALYSIS_DEPTH)) {
      throw new ZeroError('invalid_request', `an analysis document may nest at most ${MAX_ANALYSIS_DEPTH} levels deep`, { field: 'body', limit: MAX_ANALYSIS_DEPTH });
    }
    await this.artifacts.putJson(projectKey(id, 'analysis', `${scannerSchema.parse(scanner)}.json`), document);
    if (!(await this.getProject(id))) await this.touch(id);
  }

  async getAnalysis(id: string, scanner: string): Promise<unknown | undefined> {
    return this.artifacts.getJson(projectKey(id, 'analysis', `${scannerSchema.parse(scanner)}.json`));
  }

  async listAnalyses(id: string): Promise<string[]> {
    return (await this.list(id, 'analysis')).map((o) => o.path).filter((p) => p.endsWith('.json')).map((p) => p.slice(0, -5));
  }
}

/**
 * Of `files`, those whose content differs from what is stored, told by MD5:
 * what S3 gives as the ETag of an object written in one PUT. Where the ETag is
 * something else (SSE-KMS, a multipart upload), the file is simply written again.
 */
export function changedFiles(files: readonly ProjectFileInput[], stored: ReadonlyMap<string, string>): ProjectFileInput[] {
  return files.filter((f) => stored.get(f.path) !== createHash('md5').update(f.body).digest('hex'));
}

/** True when a parsed JSON value nests deeper than `limit` objects or arrays; walked without recursion, since the value may nest thousands of levels. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

function totalSize(contentRange: string | undefined): number | undefined {
  const match = /\/(\d+)$/.exec(contentRange ?? '');
  return match ? Number(match[1]) : undefined;
}

const TYPES: Record<string, string> = {
  md: 'text/markdown; charset=utf-8',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  pdf: 'application/pdf',
};

/** A content type from the file name; text types say UTF-8. */
export function contentTypeOf(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return TYPES[ext] ?? 'application/octet-stream';
}

/** Runs `fn` over items with at most `limit` in flight. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  });
  await Promise.all(workers);
  return results;
}
