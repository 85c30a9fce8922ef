import * as z from 'zod';
import { conflict } from '@zero/agent/errors';
import type { RunQueue } from '../sessions/queue';
import type { Dream } from '../store/items/dream';
import type { DreamStore } from './dream-store';

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

/** Records a new `pending` dream and queues its job for the worker; a queue that takes only run jobs refuses it (409) before anything is recorded. */
export async function startDream(deps: { dreams: DreamStore; queue: RunQueue }, dream: Dream): Promise<Dream> {
  const send = deps.queue.sendMessage?.bind(deps.queue);
  if (!send) throw conflict('this deployment\'s worker queue runs no dreams');
  await deps.dreams.create(dream);
  const job: DreamJob = { kind: 'dream', dream_id: dream.id, owner: dream.owner };
  await send(job);
  return dream;
}
