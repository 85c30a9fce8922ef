import { describe, expect, it } from 'vitest';
import { ZeroError } from '@zero/agent/errors';
import { readSkillUpload } from './skill-upload';

const md = new TextEncoder().encode('---\nname: notes\ndescription: Takes notes.\n---\nBody.\n');
const file = (name: string, bytes = new Uint8Array([1])) => ({ name, bytes });
const refused = (names: string[]) => {
  try {
    readSkillUpload([file('notes/SKILL.md', md), ...names.map((n) => file(n))]);
  } catch (error) {
    if (ZeroError.isInstance(error)) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('a skill upload', () => {
  it('takes the files of one folder, by their path inside it', () => {
    const upload = readSkillUpload([file('my-notes/SKILL.md', md), file('my-notes/scripts/run.py')]);
    expect(upload).toMatchObject({ folder: 'my-notes', name: 'notes', description: 'Takes notes.' });
    expect(upload.files.map((f) => f.path)).toEqual(['SKILL.md', 'scripts/run.py']);
  });

  it('refuses, naming the file, every path that could leave the folder or is not a plain name', () => {
    expect(refused(['notes/../x'])).toMatch(/^files\[1\]: .*"\.\." segment/);
    expect(refused(['notes/./x'])).toMatch(/^files\[1\]: /);
    expect(refused(['notes//x'])).toMatch(/^files\[1\]: /);
    expect(refused(['/etc/passwd'])).toMatch(/^files\[1\]: .*absolute/);
    expect(refused(['notes\\x'])).toMatch(/^files\[1\]: .*backslash/);
    expect(refused(['notes/a\0b'])).toMatch(/^files\[1\]: .*control character/);
    expect(refused(['notes/a\nb'])).toMatch(/^files\[1\]: .*control character/);
    expect(refused(['notes/SKILL.md'])).toMatch(/^files\[1\]: .*sent twice/);
    expect(refused([`notes/${'a'.repeat(600)}`])).toMatch(/^files\[1\]: a file's name must be 1 to 512 characters/);
  });

  it('refuses a SKILL.md that is not UTF-8', () => {
    expect(() => readSkillUpload([file('notes/SKILL.md', new Uint8Array([0xff, 0xfe, 0x00]))])).toThrow(/^SKILL\.md: is not UTF-8 text/);
  });
});
