import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { conflict, notFound } from '@zero/agent/errors';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { managedAgentVersionSchema, storedManagedAgentVersionSchema, type ManagedAgentVersion } from './agent-document';

const PREFIX = 'agents/managed/';
const versionKey = (id: string, version: number) => `${PREFIX}${id}/v${String(version).padStart(6, '0')}.json`;
const archivedKey = (id: string) => `${PREFIX}${id}/archived.json`;
const VERSION_KEY = /^agents\/managed\/([^/]+)\/v(\d{6})\.json$/;

/** Who asks to change an agent: a user, and whether they are an administrator. */
export interface AgentEditor {
  id: string;
  admin: boolean;
}

/**
 * Whether `editor` may change (update, archive) `agent`: its owner and administrators may; an agent
 * stored before agents had owners (no owner) only administrators may, as nobody can tell whose it is.
 */
export function mayChangeAgent(agent: Pick<ManagedAgent, 'versions'>, editor: AgentEditor): boolean {
  if (editor.admin) return true;
  const owner = agent.versions.at(-1)!.owner;
  return owner !== null && owner === editor.id;
}

/** A managed agent: its versions, oldest first, and when it was archived. */
export interface ManagedAgent {
  id: string;
  versions: ManagedAgentVersion[];
  archived_at: string | null;
}

/**
 * Managed agents in the bucket, one immutable object per version. A version is
 * written only if its key is free (`If-None-Match: *`), so of two updates made
 * from the same version exactly one wins on S3; the other gets a 409.
 */
export class ManagedAgentStore {
  /** Versions never change once written: each is read once per instance. */
  private readonly versions = new Map<string, ManagedAgentVersion>();

  constructor(private readonly artifacts: ArtifactStore) {}

  /**
   * Every managed agent (archived too), in id order. An agent whose stored versions do not read
   * (a hand-edited object) is left out and named in `errors`, so it cannot take the others down.
   */
  async list(): Promise<{ agents: ManagedAgent[]; errors: { key: string; message: string }[] }> {
    const keys = await this.artifacts.list(PREFIX);
    const byId = new Map<string, { versions: string[]; archived: boolean }>();
    for (const { key } of keys) {
      const id = key.slice(PREFIX.length).split('/')[0]!;
      const entry = byId.get(id) ?? { versions: [], archived: false };
      if (VERSION_KEY.test(key)) entry.versions.push(key);
      else if (key === archivedKey(id)) entry.archived = true;
      byId.set(id, entry);
    }
    const errors: { key: string; message: string }[] = [];
    const read = await Promise.all(
      [...byId].filter(([, e]) => e.versions.length > 0).map(async ([id, e]): Promise<ManagedAgent | undefined> => {
        try {
          return {
            id,
            versions: await Promise.all(e.versions.sort().map((key) => this.readVersion(key))),
            archived_at: e.archived ? await this.archivedAt(id) : null,
          };
        } catch (error) {
          errors.push({ key: `${PREFIX}${id}/`, message: error instanceof Error ? error.message.slice(0, 500) : String(error) });
          return undefined;
        }
      }),
    );
    const agents = read.filter((a): a is ManagedAgent => !!a).sort((a, b) => a.id.localeCompare(b.id));
    return { agents, errors };
  }

  async get(id: string): Promise<ManagedAgent | undefined> {
    if (!/^agent_[a-z0-9]{1,64}$/.test(id)) return undefined;
    const keys = (await this.artifacts.list(`${PREFIX}${id}/`)).map((k) => k.key);
    const versions = keys.filter((k) => VERSION_KEY.test(k)).sort();
    if (versions.length === 0) return undefined;
    return {
      id,
      versions: await Promise.all(versions.map((key) => this.readVersion(key))),
      archived_at: keys.includes(archivedKey(id)) ? await this.archivedAt(id) : null,
    };
  }

  /**
   * The agent, if `editor` may change it; otherwise the same 404 as for an agent that does not
   * exist, so a change refused tells an outsider nothing they could not read already.
   */
  async requireChangeable(id: string, editor: AgentEditor): Promise<ManagedAgent> {
    const agent = await this.get(id);
    if (!agent || !mayChangeAgent(agent, editor)) throw notFound(`no agent "${id}"`, 'agent_id');
    return agent;
  }

  /**
   * Writes a version made by `editor`; a 409 when that version exists already (someone updated the
   * agent since it was read). A first version is the editor's own agent; a later one keeps the
   * agent's owner and is written only if the editor may change the agent (a 404 otherwise).
   */
  async putVersion(doc: ManagedAgentVersion, editor: AgentEditor): Promise<void> {
    if (doc.version === 1) {
      if (doc.owner !== editor.id) throw new Error(`a new agent is owned by the user who makes it (${editor.id}), not ${doc.owner}`);
    } else {
      const owner = (await this.requireChangeable(doc.id, editor)).versions.at(-1)!.owner;
      if (doc.owner !== owner) throw new Error(`an update keeps the agent's owner (${owner}), not ${doc.owner}`);
    }
    const key = versionKey(doc.id, doc.version);
    const body = JSON.stringify(managedAgentVersionSchema.parse(doc));
    try {
      await this.artifacts.s3.send(
        new PutObjectCommand({ Bucket: this.artifacts.bucket, Key: key, Body: body, ContentType: 'application/json', ContentLength: Buffer.byteLength(body), IfNoneMatch: '*' }),
      );
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 412 || status === 409) throw conflict(`version ${doc.version} of agent "${doc.id}" was written by someone else; read the agent again`, { field: 'version' });
      throw error;
    }
    this.versions.set(key, doc);
  }

  /** Archives the agent, if `editor` may change it (a 404 otherwise). */
  async archive(id: string, at: string, editor: AgentEditor): Promise<void> {
    await this.requireChangeable(id, editor);
    await this.artifacts.putJson(archivedKey(id), { archived_at: at });
  }

  private async readVersion(key: string): Promise<ManagedAgentVersion> {
    const cached = this.versions.get(key);
    if (cached) return cached;
    const doc = storedManagedAgentVersionSchema.parse(await this.artifacts.getJson(key));
    this.versions.set(key, doc);
    return doc;
  }

  private async archivedAt(id: string): Promise<string> {
    const marker = await this.artifacts.getJson<{ archived_at?: string }>(archivedKey(id));
    return marker?.archived_at ?? new Date(0).toISOString();
  }
}

/** The agent or a 404 naming it. */
export async function requireManagedAgent(store: ManagedAgentStore, id: string): Promise<ManagedAgent> {
  const agent = await store.get(id);
  if (!agent) throw notFound(`no agent "${id}"`, 'agent_id');
  return agent;
}

const stores = new WeakMap<S3Client, Map<string, ManagedAgentStore>>();

/** The one store of a bucket in this process, so the catalog and the `/v1` routes share its cache and writes. */
export function managedAgentStore(s3: S3Client, bucket: string): ManagedAgentStore {
  const byBucket = stores.get(s3) ?? new Map<string, ManagedAgentStore>();
  stores.set(s3, byBucket);
  let store = byBucket.get(bucket);
  if (!store) byBucket.set(bucket, (store = new ManagedAgentStore(new ArtifactStore(s3, bucket))));
  return store;
}
