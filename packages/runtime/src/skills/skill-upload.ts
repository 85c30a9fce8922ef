import { invalidField, tooLarge } from '@zero/agent/errors';
import { parseSkillMd } from '@zero/agent/definitions/skill-md';

/** The most bytes one upload of a skill may hold, all its files together (Anthropic's limit too). */
export const MAX_SKILL_BYTES = 8 * 1024 * 1024;
/** The most files one upload of a skill may hold. */
export const MAX_SKILL_FILES = 1000;
/** The longest path of a file in a skill, its folder included. */
const MAX_PATH_CHARS = 512;

/** One uploaded file: the name it was sent with (`<folder>/<path>`) and its bytes. */
export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

/** A skill's upload, checked: its SKILL.md's name and description, and its files by their path inside the skill's folder. */
export interface SkillUpload {
  /** The one top-level folder every file was sent in. */
  folder: string;
  name: string;
  description: string;
  files: { path: string; bytes: Uint8Array }[];
}

/**
 * Checks an upload in the Agent Skills format: every file inside one top-level folder, a SKILL.md
 * at that folder's root whose front matter reads, no path that could leave the folder (`..`,
 * absolute, backslash, NUL, empty segment), no path twice, under the size and count limits.
 * Throws a 400 (413 for the size) naming the field: `files`, `files[i]` or `SKILL.md <field>`.
 */
export function readSkillUpload(uploaded: readonly UploadedFile[]): SkillUpload {
  if (uploaded.length === 0) throw invalidField('files', 'at least one file is required: the skill\'s folder with its SKILL.md');
  if (uploaded.length > MAX_SKILL_FILES) throw invalidField('files', `at most ${MAX_SKILL_FILES} files in one skill; got ${uploaded.length}`);
  const total = uploaded.reduce((sum, f) => sum + f.bytes.byteLength, 0);
  if (total > MAX_SKILL_BYTES) throw tooLarge(`files: a skill's files may hold at most ${MAX_SKILL_BYTES} bytes together; these hold ${total}`, 'files');
  let folder: string | undefined;
  const seen = new Set<string>();
  const files = uploaded.map((file, i) => {
    const segments = pathSegments(file.name, `files[${i}]`);
    if (segments.length < 2) throw invalidField(`files[${i}]`, `"${file.name}" is not inside a folder: send every file as <skill folder>/<path>, e.g. "my-skill/SKILL.md"`);
    const [top, ...rest] = segments;
    folder ??= top;
    if (top !== folder) throw invalidField(`files[${i}]`, `every file must be in the same top-level folder: "${file.name}" is not in "${folder}/"`);
    const path = rest.join('/');
    if (seen.has(path)) throw invalidField(`files[${i}]`, `"${file.name}" is sent twice`);
    seen.add(path);
    return { path, bytes: file.bytes };
  });
  const skillMd = files.find((f) => f.path === 'SKILL.md');
  if (!skillMd) throw invalidField('files', `a SKILL.md is required at the root of the skill's folder ("${folder}/SKILL.md")`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(skillMd.bytes);
  } catch {
    throw invalidField('SKILL.md', 'is not UTF-8 text');
  }
  const { name, description } = parseSkillMd(text);
  return { folder: folder!, name, description, files };
}

/** A relative path's segments, or a 400 naming `field` when it could leave its folder. */
export function pathSegments(name: string, field: string): string[] {
  if (name.length === 0 || name.length > MAX_PATH_CHARS) throw invalidField(field, `a file's name must be 1 to ${MAX_PATH_CHARS} characters`);
  if (name.includes('\\')) throw invalidField(field, `"${name}" holds a backslash; use "/" between folders`);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) throw invalidField(field, `${JSON.stringify(name)} holds a control character (NUL, a line break, …)`);
  if (name.startsWith('/')) throw invalidField(field, `"${name}" is an absolute path; send <skill folder>/<path>`);
  const segments = name.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw invalidField(field, `"${name}" has an empty, "." or ".." segment`);
  return segments;
}
