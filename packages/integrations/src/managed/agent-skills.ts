import { invalidField } from '@zero/agent/errors';
import type { SkillStore } from '@zero/runtime/skills/skill-store';
import type { AgentCreateParams } from './agent-params';
import type { ManagedAgentVersion } from './agent-document';

/**
 * An agent's `skills` as stored: each a skill of the agent's owner, pinned to the version asked
 * for, or to its newest when none (or `latest`) is. A skill that is not the owner's is refused as
 * if it did not exist; an Anthropic skill is refused by name (Zero publishes none). 400s name the entry.
 */
export async function skillsOf(params: NonNullable<AgentCreateParams['skills']>, owner: string | null, store: SkillStore): Promise<ManagedAgentVersion['skills']> {
  const seen = new Set<string>();
  const out: ManagedAgentVersion['skills'] = [];
  for (const [i, param] of params.entries()) {
    if (param.type === 'anthropic') {
      throw invalidField(`skills.${i}.type`, `Zero publishes no Anthropic skills ("${param.skill_id}"): upload the skill's folder (client.beta.skills.create) and list it as type "custom"`);
    }
    const skill = owner === null ? undefined : await store.get(param.skill_id);
    if (!skill || skill.record.owner !== owner) throw invalidField(`skills.${i}.skill_id`, `no skill "${param.skill_id}" among the agent owner's skills`);
    if (seen.has(skill.record.id)) throw invalidField(`skills.${i}.skill_id`, `"${param.skill_id}" is listed twice`);
    seen.add(skill.record.id);
    const wanted = param.version ?? 'latest';
    const version = wanted === 'latest' ? skill.versions.at(-1) : skill.versions.find((v) => v.id === wanted);
    if (!version) throw invalidField(`skills.${i}.version`, `skill "${param.skill_id}" has no version "${wanted}"`);
    out.push({ type: 'custom', skill_id: skill.record.id, version: version.id });
  }
  const names = new Map<string, number>();
  for (const [i, ref] of out.entries()) {
    const name = (await store.version(ref.skill_id, ref.version))!.name;
    if (names.has(name)) throw invalidField(`skills.${i}.skill_id`, `two skills are named "${name}": an agent's skills need distinct names (each is a folder, .skills/${name})`);
    names.set(name, i);
  }
  return out;
}
