import { createHash, randomBytes, randomInt } from 'node:crypto';
import * as z from 'zod';
import { conflict, invalidField, notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '../store/artifact-store';
import { getObjectBytes, putObjectIfAbsent } from '../store/object-bytes';
import { mapLimit } from '../projects/project-store';
import type { SkillUpload } from './skill-upload';

/** A skill: who owns it (the only one who sees it) and its label. Its versions are stored beside it. */
export const skillRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  owner: z.string(),
  display_name: z.string(),
  created_at: z.string(),
});
export type SkillRecord = z.infer<typeof skillRecordSchema>;

/** One version of a skill: written once, never changed (its files are under its own prefix). */
export const skillVersionSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  skill_id: z.string(),
  name: z.string(),
  description: z.string(),
  created_at: z.string(),
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative() })),
});
export type SkillVersion = z.infer<typeof skillVersionSchema>;

/** A skill with its versions, oldest first (always at least one). */
export interface Skill {
  record: SkillRecord;
  versions: SkillVersion[];
}

export const SKILL_ID = /^skill_[a-z0-9]{24}$/;
/** A version's id: 16 digits, the time it was made in ms and three random digits, so ids sort oldest first. */
export const VERSION_ID = /^\d{16}$/;

const skillKey = (id: string) => `skills/${id}/skill.json`;
const versionsPrefix = (id: string) => `skills/${id}/versions/`;
const versionKey = (id: string, version: string) => `${versionsPrefix(id)}${version}.json`;
const filesPrefix = (id: string, version: string) => `skills/${id}/files/${version}/`;
/** The index of an owner's skills: one empty object per skill, so listing them reads only theirs. */
const ownerPrefix = (owner: string) => `skill-owners/${createHash('sha256').update(owner).digest('hex').slice(0, 32)}/`;

const newSkillId = () => `skill_${[...randomBytes(24)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('')}`;
const newVersionId = () => `${Date.now()}${String(randomInt(1000)).padStart(3, '0')}`;

/**
 * Skills in the bucket (`skills/<id>/`): a record, versions (`versions/<version>.json`) and each
 * version's files (`files/<version>/<path>`). A version is written once and never changed, so it
 * is read once per process. A skill is its owner's: every read for a caller goes through `reach`,
 * which answers the same 404 for someone else's skill as for none.
 */
export class SkillStore {
  private readonly versionCache = new Map<string, SkillVersion>();

  constructor(readonly artifacts: ArtifactStore) {}

  /** Stores a new skill of `owner` with its first version. */
  async create(owner: string, displayName: string | undefined, upload: SkillUpload): Promise<Skill> {
    const record: SkillRecord = { v: 1, id: newSkillId(), owner, display_name: displayName ?? upload.name, created_at: new Date().toISOString() };
    const version = await this.writeVersion(record.id, upload);
    await this.artifacts.putJson(skillKey(record.id), record);
    await this.artifacts.put(`${ownerPrefix(owner)}${record.id}`, '');
    return { record, versions: [version] };
  }

  /** Adds a version; its SKILL.md must name the skill as its first version did (the name is the skill's folder). */
  async addVersion(skill: Skill, upload: SkillUpload): Promise<SkillVersion> {
    const name = skill.versions[0]!.name;
    if (upload.name !== name) throw invalidField('SKILL.md name', `must stay "${name}", the name this skill was created with (a skill's name never changes); got "${upload.name}"`);
    return this.writeVersion(skill.record.id, upload);
  }

  /** The skill, whoever owns it; undefined when there is none (or it has no version left). */
  async get(id: string): Promise<Skill | undefined> {
    if (!SKILL_ID.test(id)) return undefined;
    const record = await this.artifacts.getJson(skillKey(id));
    if (!record) return undefined;
    const keys = (await this.artifacts.list(versionsPrefix(id))).map((k) => k.key.slice(versionsPrefix(id).length).replace(/\.json$/, '')).filter((v) => VERSION_ID.test(v));
    const versions = (await Promise.all(keys.sort().map((v) => this.version(id, v)))).filter((v): v is SkillVersion => !!v);
    if (!versions.length) return undefined;
    return { record: skillRecordSchema.parse(record), versions };
  }

  /** The skill if `owner` owns it; otherwise the same 404 as for a skill that does not exist. */
  async reach(id: string, owner: string): Promise<Skill> {
    const skill = await this.get(id);
    if (!skill || skill.record.owner !== owner) throw notFound(`no skill "${id}"`, 'skill_id');
    return skill;
  }

  /** The version `version` (or `latest`) of a skill the caller reached; a 404 naming it otherwise. */
  versionOf(skill: Skill, version: string): SkillVersion {
    const found = version === 'latest' ? skill.versions.at(-1) : skill.versions.find((v) => v.id === version);
    if (!found) throw notFound(`skill "${skill.record.id}" has no version "${version}"`, 'version');
    return found;
  }

  /** Every skill of `owner`, newest first. */
  async listFor(owner: string): Promise<Skill[]> {
    const ids = (await this.artifacts.list(ownerPrefix(owner))).map((k) => k.key.slice(ownerPrefix(owner).length));
    const skills = await mapLimit(ids, 8, (id) => this.get(id));
    return skills
      .filter((s): s is Skill => !!s && s.record.owner === owner)
      .sort((a, b) => b.record.created_at.localeCompare(a.record.created_at) || b.record.id.localeCompare(a.record.id));
  }

  /** A version, read once per process (versions never change); undefined when there is none. */
  async version(skillId: string, version: string): Promise<SkillVersion | undefined> {
    if (!SKILL_ID.test(skillId) || !VERSION_ID.test(version)) return undefined;
    const key = versionKey(skillId, version);
    const cached = this.versionCache.get(key);
    if (cached) return cached;
    const raw = await this.artifacts.getJson(key);
    if (!raw) return undefined;
    const parsed = skillVersionSchema.parse(raw);
    this.versionCache.set(key, parsed);
    return parsed;
  }

  /** A file of a version, by its path inside the skill's folder; undefined when the version has no such file. */
  async readFile(version: SkillVersion, path: string): Promise<Uint8Array | undefined> {
    if (!version.files.some((f) => f.path === path)) return undefined;
    return getObjectBytes(this.artifacts, `${filesPrefix(version.skill_id, version.id)}${path}`);
  }

  /** Every file of a version, in path order. */
  async readFiles(version: SkillVersion): Promise<{ path: string; bytes: Uint8Array }[]> {
    return mapLimit(version.files, 16, async (f) => ({ path: f.path, bytes: (await this.readFile(version, f.path)) ?? new Uint8Array() }));
  }

  /** Deletes one version and its files. The last version is refused: a skill always holds one (delete the skill instead). */
  async deleteVersion(skill: Skill, version: SkillVersion): Promise<void> {
    if (skill.versions.length === 1) throw conflict(`version "${version.id}" is the only version of skill "${skill.record.id}": a skill always holds one version; delete the skill instead`, { field: 'version' });
    await this.artifacts.delete(versionKey(skill.record.id, version.id));
    this.versionCache.delete(versionKey(skill.record.id, version.id));
    await this.artifacts.deletePrefix(filesPrefix(skill.record.id, version.id));
  }

  /** Deletes the skill with every version and file. */
  async delete(skill: Skill): Promise<void> {
    const id = skill.record.id;
    await this.artifacts.delete(`${ownerPrefix(skill.record.owner)}${id}`);
    await this.artifacts.delete(skillKey(id));
    for (const v of skill.versions) this.versionCache.delete(versionKey(id, v.id));
    await this.artifacts.deletePrefix(`skills/${id}/`);
  }

  /** Writes the files first, then the version's record (write-once), so a version that can be read is whole. */
  private async writeVersion(skillId: string, upload: SkillUpload): Promise<SkillVersion> {
    const version: SkillVersion = {
      v: 1,
      id: newVersionId(),
      skill_id: skillId,
      name: upload.name,
      description: upload.description,
      created_at: new Date().toISOString(),
      files: upload.files.map((f) => ({ path: f.path, size: f.bytes.byteLength })).sort((a, b) => a.path.localeCompare(b.path)),
    };
    if (await this.artifacts.getJson(versionKey(skillId, version.id))) throw conflict('two versions of this skill were made in the same instant; send it again', { field: 'files' });
    await mapLimit(upload.files, 16, (f) => this.artifacts.put(`${filesPrefix(skillId, version.id)}${f.path}`, f.bytes));
    if (!(await putObjectIfAbsent(this.artifacts, versionKey(skillId, version.id), JSON.stringify(version), 'application/json'))) {
      throw conflict('two versions of this skill were made in the same instant; send it again', { field: 'files' });
    }
    this.versionCache.set(versionKey(skillId, version.id), version);
    return version;
  }
}

const stores = new WeakMap<ArtifactStore, SkillStore>();

/** The one skill store of a bucket's artifact store in this process, so the API and the runs share its cache. */
export function skillStore(artifacts: ArtifactStore): SkillStore {
  let store = stores.get(artifacts);
  if (!store) stores.set(artifacts, (store = new SkillStore(artifacts)));
  return store;
}
