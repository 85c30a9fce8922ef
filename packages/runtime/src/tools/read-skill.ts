import * as z from 'zod';
import { SKILL_TOOL } from '@zero/agent/definitions/claude-code-tools';
import { SKILLS_FOLDER, sessionSkills } from '../skills/session-skills';
import { skillStore } from '../skills/skill-store';
import { looksBinary } from './project-scope';
import { defineTool } from './tool';

/** The most of one file the model is shown at once (the registry caps the whole result as well). */
const MAX_CHARS = 100_000;

/**
 * Loads one of the run's skills on demand (progressive disclosure): the prompt lists each skill's
 * name and description only; this answers its SKILL.md with the list of its files, or one bundled
 * file. Only the agent's own skills are reachable, by name, and only files the version holds.
 */
export const readSkillTool = defineTool({
  name: SKILL_TOOL,
  readOnly: true,
  policySubject: (input) => (input.path ? `${input.skill}/${input.path}` : input.skill),
  description:
    "Load one of your skills (listed under Skills in your instructions): its SKILL.md instructions and the list of its files, or one of its bundled files by path. Read a skill's SKILL.md before you use it. " +
    `Its files are also in your working copy at ${SKILLS_FOLDER}/<skill name>/, so run_command (or bash) can run its scripts there.`,
  input: z.object({
    skill: z.string().min(1).max(64).describe('The skill\'s name, e.g. "pdf-report".'),
    path: z.string().min(1).max(512).optional().describe('A file inside the skill, e.g. "reference.md" or "scripts/fill.py". Default: SKILL.md.'),
  }),
  async execute({ skill: name, path = 'SKILL.md' }, context) {
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
  },
});
