import type { AgentDefinition, SkillRef } from '@zero/agent/definitions/definition';
import type { ArtifactStore } from '../store/artifact-store';
import type { SessionStore } from '../store/session-store';
import { skillStore, type SkillVersion } from './skill-store';

/** Where a run's working copy holds its skills' files: `.skills/<name>/<path>`. */
export const SKILLS_FOLDER = '.skills';

/** The skills a run has: the versions its agent's skills resolved to, and why any could not be had (phrased for the model). */
export interface SessionSkills {
  skills: SkillVersion[];
  unavailable: string[];
}

/**
 * Resolves an agent's skills for a session. A skill is used only if it belongs to the owner its
 * reference names (a managed agent's owner, who attached it) or, without one, to the person who
 * started the session: a skill is never read for anyone its owner did not give it to. Names
 * resolve to the newest skill of that name; a name that two resolved skills share keeps the first.
 * Must not throw: a failure is `unavailable`.
 */
export async function sessionSkills(
  services: { artifacts: ArtifactStore; sessions: SessionStore },
  sessionId: string,
  agent: Pick<AgentDefinition, 'skills'>,
): Promise<SessionSkills> {
  const refs = agent.skills ?? [];
  if (!refs.length) return { skills: [], unavailable: [] };
  const store = skillStore(services.artifacts);
  const unavailable: string[] = [];
  let starter: Promise<string | undefined> | undefined;
  const starterOf = () => (starter ??= services.sessions.getSession(sessionId).then((s) => s?.created_by ?? undefined, () => undefined));
  const resolve = async (ref: SkillRef): Promise<SkillVersion | undefined> => {
    const owner = ref.owner ?? (await starterOf());
    const named = ref.skill_id ?? ref.name ?? '?';
    if (!owner) return void unavailable.push(`${named}: this conversation was started by no one in particular, so it has no one's skills`);
    if (ref.skill_id) {
      const skill = await store.get(ref.skill_id);
      if (!skill || skill.record.owner !== owner) return void unavailable.push(`${named}: no such skill of its owner's (deleted, or never theirs)`);
      const version = ref.version ? skill.versions.find((v) => v.id === ref.version) : skill.versions.at(-1);
      if (!version) return void unavailable.push(`${named}: its version ${ref.version} was deleted`);
      return version;
    }
    for (const skill of await store.listFor(owner)) {
      if (skill.versions.at(-1)!.name === ref.name) return skill.versions.at(-1);
    }
    return void unavailable.push(`${named}: the person who started this conversation has no skill of this name`);
  };
  try {
    const resolved = await Promise.all(refs.map(resolve));
    const byName = new Map<string, SkillVersion>();
    for (const version of resolved) {
      if (!version) continue;
      if (byName.has(version.name)) unavailable.push(`${version.skill_id}: another of this agent's skills is named "${version.name}" already`);
      else byName.set(version.name, version);
    }
    return { skills: [...byName.values()], unavailable };
  } catch (error) {
    return { skills: [], unavailable: [`the skills could not be read (${error instanceof Error ? error.message : String(error)})`] };
  }
}
