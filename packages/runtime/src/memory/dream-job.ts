import * as z from 'zod';

/** The worker's message that runs a dream (on the run queue, beside session jobs). */
export const dreamJobSchema = z.object({ kind: z.literal('dream'), dream_id: z.string().min(1).max(64), owner: z.string().min(1).max(256) });
export type DreamJob = z.infer<typeof dreamJobSchema>;

/** The dream job a queue message (its body, or the message) holds, or undefined when it is another kind of message. */
export function dreamJobOf(message: string | Record<string, string>): DreamJob | undefined {
  try {
    const parsed = dreamJobSchema.safeParse(typeof message === 'string' ? JSON.parse(message) : message);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
