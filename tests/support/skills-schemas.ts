import * as z from 'zod';

/**
 * The Skills API's answers, written from Anthropic's SDK types
 * (`@anthropic-ai/sdk/resources/beta/skills/{skills,versions}`): every field the types mark as
 * required, with its type. Answers are parsed against these.
 */

/** `BetaSkill`. */
export const skillSchema = z.object({
  id: z.string(),
  type: z.literal('skill'),
  created_at: z.string(),
  display_name: z.string(),
  latest_version_id: z.string(),
  source: z.object({ type: z.enum(['custom', 'anthropic', 'anthropic_example', 'plugin']) }),
  updated_at: z.string(),
});

/** `BetaSkillVersion`. */
export const skillVersionSchema = z.object({
  id: z.string(),
  type: z.literal('skill_version'),
  created_at: z.string(),
  description: z.string(),
  name: z.string(),
  skill_id: z.string(),
});

/** `BetaDeletedSkill`. */
export const deletedSkillSchema = z.object({ id: z.string(), type: z.literal('skill_deleted') });

/** `BetaDeletedSkillVersion`. */
export const deletedSkillVersionSchema = z.object({ id: z.string(), type: z.literal('skill_version_deleted') });

/** A `PageCursor` page. */
export const pageSchema = <S extends z.ZodType>(item: S) => z.object({ data: z.array(item), next_page: z.string().nullable().optional() });
