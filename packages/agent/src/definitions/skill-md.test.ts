import { describe, expect, it } from 'vitest';
import { ZeroError } from '../errors';
import { parseAgentMarkdown } from './parse';
import { parseSkillMd } from './skill-md';

const refusal = (text: string) => {
  try {
    parseSkillMd(text);
  } catch (error) {
    if (ZeroError.isInstance(error)) return { status: error.status, message: error.message, field: error.details.field };
    throw error;
  }
  throw new Error('parsed');
};

describe('SKILL.md', () => {
  it('reads the front matter of the Agent Skills format (quoted, folded or plain) and keeps the instructions after it', () => {
    const skill = parseSkillMd('---\nname: pdf\ndescription: "Use this skill: for PDFs."\nlicense: Proprietary\nmetadata:\n  version: "1.0"\nallowed-tools: Bash(python:*) Read\n---\n\n# PDF\nSteps.\n');
    expect(skill).toEqual({ name: 'pdf', description: 'Use this skill: for PDFs.', body: '\n# PDF\nSteps.\n' });
    expect(parseSkillMd('---\nname: a-b\ndescription: |-\n  Line one.\n  Line two.\n---\n').description).toBe('Line one.\nLine two.');
  });

  it('refuses what is not a skill with a 400 naming the field', () => {
    expect(refusal('# nothing')).toMatchObject({ status: 400, field: 'SKILL.md' });
    expect(refusal('---\nname: x\n---\n')).toMatchObject({ status: 400, field: 'SKILL.md description', message: 'SKILL.md description: is required' });
    expect(refusal('---\nname: -x\ndescription: d\n---\n')).toMatchObject({ field: 'SKILL.md name' });
    expect(refusal('---\nname: a--b\ndescription: d\n---\n')).toMatchObject({ field: 'SKILL.md name' });
    expect(refusal(`---\nname: ${'a'.repeat(65)}\ndescription: d\n---\n`)).toMatchObject({ field: 'SKILL.md name', message: 'SKILL.md name: must be at most 64 characters' });
    expect(refusal('---\nname: x\ndescription: Use <tool>this</tool>\n---\n')).toMatchObject({ field: 'SKILL.md description' });
    expect(refusal('---\n- a list\n---\n')).toMatchObject({ field: 'SKILL.md' });
  });
});

describe("an agent file's skills:", () => {
  const file = (skills: string) => `---\nname: Notes\ndescription: Writes notes.\ntools: Read, Skill\nskills: ${skills}\n---\nBody.\n`;

  it('names skills by name or by id (one version with @), and Claude Code\'s Skill tool is read_skill', () => {
    const result = parseAgentMarkdown('agents/notes.md', file('[release-notes, skill_abc123, skill_abc123@1795816768258410]'), new Set(['read_file', 'read_skill']));
    expect(result.ok && result.agent.skills).toEqual([{ name: 'release-notes' }, { skill_id: 'skill_abc123' }, { skill_id: 'skill_abc123', version: '1795816768258410' }]);
    expect(result.ok && result.agent.tools).toEqual(['read_file', 'read_skill']);
  });

  it('refuses an entry that is neither, naming the field; a file without tools: or skills: does not inherit read_skill', () => {
    expect(parseAgentMarkdown('agents/notes.md', file('[Not A Name]'))).toMatchObject({ ok: false, error: { field: 'skills' } });
    const plain = parseAgentMarkdown('agents/plain.md', '---\nname: Plain\ndescription: d\n---\nBody.\n', new Set(['read_file', 'read_skill']));
    expect(plain.ok && plain.agent.tools).toEqual(['read_file']);
  });
});
