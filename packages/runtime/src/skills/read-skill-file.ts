import { looksBinary } from '../tools/project-scope';
import type { ToolContext, ToolOutput } from '../tools/tool';
import { sessionSkills } from './session-skills';
import { skillStore } from './skill-store';
import { SKILLS_FOLDER } from './skills-folder';

/** The most of one file the model is shown at once (the registry caps the whole result as well). */
const MAX_CHARS = 100_000;

/**
 * read_skill's answer: the SKILL.md of one of the run's skills with the list of its files, or one
 * bundled file. Only the agent's own skills (see `sessionSkills`) and the files their version holds.
 */
export async function readSkillFile({ skill: name, path = 'SKILL.md' }: { skill: string; path?: string }, context: ToolContext): Promise<ToolOutput> {
  const { skills, unavailable } = await sessionSkills(context, context.sessionId, context.agent);
  const version = skills.find((s) => s.name === name);
  if (!version) {
    const known = skills.map((s) => s.name).join(', ') || 'none';
    return { content: `You have no skill "${name}". Your skills: ${known}.${unavailable.length ? ` Not available: ${unavailable.join('; ')}.` : ''}`, is_error: true };
  }
  const file = version.files.find((f) => f.path === path.replace(/^\.\//, ''));
  if (!file) return { content: `Skill "${name}" has no file "${path}". Its files: ${version.files.map((f) => f.path).join(', ')}.`, is_error: true };
  const bytes = await skillStore(context.artifacts).readFile(version, file.path);
  if (!bytes) return { content: `The file "${path}" of skill "${name}" could not be read from storage.`, is_error: true };
  const where = `${SKILLS_FOLDER}/${name}/${file.path}`;
  if (looksBinary(bytes)) return { content: `"${file.path}" is a binary file (${file.size} bytes); it is at ${where} in your working copy for run_command.`, is_error: true };
  let text = new TextDecoder('utf-8').decode(bytes);
  const cut = text.length > MAX_CHARS;
  if (cut) text = text.slice(0, MAX_CHARS);
  const lines = [`Skill "${name}", version ${version.id}: ${where}${cut ? ` (showing its first ${MAX_CHARS} characters)` : ''}`];
  if (file.path === 'SKILL.md') {
    lines.push(
      `Its files (in your working copy under ${SKILLS_FOLDER}/${name}/; run its scripts with run_command, cwd "${SKILLS_FOLDER}/${name}"):`,
      ...version.files.map((f) => `- ${f.path} (${f.size} bytes)`),
    );
  }
  lines.push(`--- ${file.path} ---`, text);
  return lines.join('\n');
}
