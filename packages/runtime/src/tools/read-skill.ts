import * as z from 'zod';
import { SKILL_TOOL } from '@zero/agent/definitions/claude-code-tools';
import { defineTool } from './tool';

/**
 * Loads one of the run's skills on demand (progressive disclosure): the prompt lists each skill's
 * name and description only; this answers its SKILL.md with the list of its files, or one bundled
 * file. Only the agent's own skills are reachable, by name, and only files the version holds.
 */
export const readSkillTool = defineTool({
  name: SKILL_TOOL,
  readOnly: true,
  policySubject: (input) => (input.path ? `${input.skill}/${input.path}` : input.skill),
  description: "Load one of your skills (see Skills in your instructions): its SKILL.md and list of files, or one of its files by path.",
  input: () => z.object({
    skill: z.string().min(1).max(64).describe("The skill's name."),
    path: z.string().min(1).max(512).optional().describe('A file inside the skill, e.g. "reference.md". Default: SKILL.md.'),
  }),
  // The skills' code loads with the first call, not with the cold start.
  execute: async (input, context) => (await import('../skills/read-skill-file')).readSkillFile(input, context),
});
