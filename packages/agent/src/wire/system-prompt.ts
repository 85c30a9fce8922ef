import * as z from 'zod';

/** The longest system-prompt text a message may replace or append (either). */
export const MAX_SYSTEM_PROMPT_CHARS = 100_000;

/**
 * A message's change to its agent's system prompt for its run (an eval variant's prompt, tried without a new
 * agent version): `replace` stands in for the agent's own definition (who it is, its role, process,
 * knowledge and the rest of its file's body); `append` is added after the whole prompt. Zero's own
 * sections (the tools list, who is speaking, voice, project) stay either way.
 */
export const systemPromptOverrideSchema = z
  .strictObject({
    replace: z.string().min(1).max(MAX_SYSTEM_PROMPT_CHARS).optional(),
    append: z.string().min(1).max(MAX_SYSTEM_PROMPT_CHARS).optional(),
  })
  .refine((o) => o.replace !== undefined || o.append !== undefined, { message: 'give replace, append or both' });
export type SystemPromptOverride = z.infer<typeof systemPromptOverrideSchema>;
