import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ZeroError } from '../errors';
import type { AgentDefinition, AgentLoadError } from './definition';
import type { ParseResult } from './parse';

/** The parser and its YAML library load with the first catalog load, not with the module (cold start). */
const loadParser = () => import('./parse');

export interface CatalogSnapshot {
  agents: ReadonlyMap<string, AgentDefinition>;
  errors: readonly AgentLoadError[];
}

/** Where agent definitions come from: the S3 bucket's `agents/` prefix, or a directory. */
export interface AgentCatalog {
  load(): Promise<CatalogSnapshot>;
  /** Forgets what it holds: the next load rereads. */
  invalidate?(): void;
}

/** Looks an agent up, or fails with a 404 that lists the agents there are. */
export async function requireAgent(catalog: AgentCatalog, id: string): Promise<AgentDefinition> {
  let { agents } = await catalog.load();
  // A miss rereads once: the agent may be newer than this instance's copy (one made through `/v1/agents` a moment ago).
  if (!agents.has(id) && catalog.invalidate) {
    catalog.invalidate();
    ({ agents } = await catalog.load());
  }
  const agent = agents.get(id);
  if (agent) return agent;
  const known = [...agents.keys()].sort();
  throw new ZeroError('agent_not_found', `unknown agent "${id}"; available agents: ${known.join(', ') || '(none)'}`, {
    field: 'agent_id',
    agents: known,
  });
}

/**
 * Why a loaded agent cannot run in this deployment (its model names a provider that is not
 * configured), as a load error's field and message.
 */
export type AgentCheck = (agent: AgentDefinition) => Promise<{ field: string; message: string } | undefined>;

/** A parsed file, failed when the deployment's check finds a problem with it. */
async function checked(file: string, result: ParseResult, check: AgentCheck | undefined): Promise<ParseResult> {
  const problem = result.ok ? await check?.(result.agent) : undefined;
  return problem ? { ok: false, error: { file, ...problem } } : result;
}

function snapshot(results: Iterable<ParseResult>): CatalogSnapshot {
  const agents = new Map<string, AgentDefinition>();
  const errors: AgentLoadError[] = [];
  for (const result of results) {
    if (result.ok) agents.set(result.agent.id, result.agent);
    else errors.push(result.error);
  }
  return { agents, errors };
}

/**
 * Reads `agents/*.md` from S3. Parsed files are kept across warm invocations and
 * revalidated by ETag: one LIST per revalidation, a GET only for changed files.
 */
export class S3AgentCatalog implements AgentCatalog {
  private cache = new Map<string, { etag: string; result: ParseResult }>();
  private current?: { at: number; snapshot: Promise<CatalogSnapshot> };

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly options: {
      prefix?: string;
      revalidateMs?: number;
      knownTools?: ReadonlySet<string>;
      check?: AgentCheck;
      /**
       * Adds the agents that are not files to each reread's snapshot (the composition root passes the
       * Managed Agents API's, `withManagedAgents`): the catalog itself knows no other store.
       */
      extend?: (snapshot: CatalogSnapshot) => Promise<CatalogSnapshot>;
    } = {},
  ) {}

  invalidate() {
    this.current = undefined;
  }

  load(): Promise<CatalogSnapshot> {
    const revalidateMs = this.options.revalidateMs ?? 5_000;
    if (this.current && Date.now() - this.current.at < revalidateMs) return this.current.snapshot;
    const pending = this.refresh();
    this.current = { at: Date.now(), snapshot: pending };
    pending.catch(() => {
      if (this.current?.snapshot === pending) this.current = undefined;
    });
    return pending;
  }

  private async refresh(): Promise<CatalogSnapshot> {
    // Loads while S3 answers; awaited below (a failed listing must not leave it unhandled).
    const parser = loadParser();
    parser.catch(() => undefined);
    const prefix = this.options.prefix ?? 'agents/';
    const listed: { key: string; etag: string }[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key?.endsWith('.md') && !object.Key.slice(prefix.length).includes('/')) {
          listed.push({ key: object.Key, etag: object.ETag ?? '' });
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);

    const { parseAgentMarkdown } = await parser;
    const next = new Map<string, { etag: string; result: ParseResult }>();
    await Promise.all(
      listed.map(async ({ key, etag }) => {
        const cached = this.cache.get(key);
        if (cached && cached.etag === etag && etag) {
          next.set(key, cached);
          return;
        }
        const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
        const text = (await object.Body?.transformToString('utf8')) ?? '';
        next.set(key, { etag: object.ETag ?? etag, result: await checked(key, parseAgentMarkdown(key, text, this.options.knownTools), this.options.check) });
      }),
    );
    this.cache = next;
    const files = snapshot([...next.values()].map((entry) => entry.result));
    return this.options.extend ? this.options.extend(files) : files;
  }
}

/** Reads `*.md` from a directory, reparsing a file only when its mtime changes. */
export class DirAgentCatalog implements AgentCatalog {
  private cache = new Map<string, { mtime: number; result: ParseResult }>();

  constructor(
    private readonly dir: string,
    private readonly options: { knownTools?: ReadonlySet<string>; check?: AgentCheck } = {},
  ) {}

  async load(): Promise<CatalogSnapshot> {
    const { parseAgentMarkdown } = await loadParser();
    const names = (await readdir(this.dir)).filter((name) => name.endsWith('.md')).sort();
    const next = new Map<string, { mtime: number; result: ParseResult }>();
    for (const name of names) {
      const path = join(this.dir, name);
      const mtime = (await stat(path)).mtimeMs;
      const cached = this.cache.get(name);
      if (cached && cached.mtime === mtime) next.set(name, cached);
      else next.set(name, { mtime, result: await checked(`agents/${name}`, parseAgentMarkdown(`agents/${name}`, await readFile(path, 'utf8'), this.options.knownTools), this.options.check) });
    }
    this.cache = next;
    return snapshot([...next.values()].map((entry) => entry.result));
  }
}
