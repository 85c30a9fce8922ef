import * as z from 'zod';
import { parse as parseYaml } from 'yaml';
import { describeZodError, invalidField } from '../errors';

/**
 * A skill's name, as the Agent Skills format (agentskills.io) has it: 1 to 64 lowercase letters,
 * digits and single hyphens, neither first nor last. It is the skill's folder in a run's working copy.
 */
const required = { error: (issue: { input: unknown }) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') };

export const skillNameSchema = z
  .string(required)
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters')
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens (e.g. "pdf-report"), not starting or ending with a hyphen');

/**
 * The longest description taken. The format says 1024 characters; Anthropic's own published
 * `claude-api` skill has 1068, so Zero takes twice the format's limit: every description is in
 * each prompt of an agent with the skill, so it stays bounded.
 */
export const MAX_DESCRIPTION_CHARS = 2048;

/**
 * The front matter of a SKILL.md, in the open Agent Skills format: `name` and `description` are
 * required; `license`, `compatibility`, `metadata` and `allowed-tools` are the format's optional
 * fields; other keys (a later version of the format's) are kept, not refused.
 */
export const skillFrontmatterSchema = z.looseObject({
  name: skillNameSchema,
  description: z
    .string(required)
    .trim()
    .min(1, 'is required')
    .max(MAX_DESCRIPTION_CHARS, `must be at most ${MAX_DESCRIPTION_CHARS} characters`)
    .refine((d) => !/<\/?[a-zA-Z][^>]*>/.test(d), 'must not contain XML tags (it goes into the model\'s prompt as it is)'),
  license: z.string().max(500).optional(),
  compatibility: z.string().max(500, 'must be at most 500 characters').optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
});

/** A SKILL.md read: its front matter's name and description, and the instructions after it. */
export interface SkillMd {
  name: string;
  description: string;
  /** The Markdown after the front matter: what the model reads when it loads the skill. */
  body: string;
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Reads a SKILL.md. Throws a 400 naming the field (`SKILL.md name`, `SKILL.md description`, or
 * `SKILL.md` itself when there is no front matter or it is not YAML), never anything else.
 */
export function parseSkillMd(text: string): SkillMd {
  const field = 'SKILL.md';
  const match = FRONTMATTER.exec(text);
  if (!match) throw invalidField(field, 'must start with YAML front matter between "---" lines, with a name and a description');
  let raw: unknown;
  try {
    raw = parseYaml(match[1] ?? '');
  } catch (error) {
    throw invalidField(field, `the front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidField(field, 'the front matter must be a YAML mapping with a name and a description');
  const parsed = skillFrontmatterSchema.safeParse(raw);
  if (!parsed.success) {
    const { field: key, message } = describeZodError(parsed.error);
    const named = key ? `${field} ${key}` : field;
    throw invalidField(named, message.startsWith(`${key}: `) ? message.slice(key.length + 2) : message);
  }
  return { name: parsed.data.name, description: parsed.data.description, body: text.slice(match[0].length) };
}
