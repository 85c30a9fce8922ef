import { addUsage, zeroUsage } from '../events/usage';
import type { LogRecord } from '../records/log-record';
import { pendingToolCalls } from './history';

/**
 * Where an unfinished run stands, read from its log alone: its completed steps, their usage, and the
 * calls of its last step still without results (what the loop's `run.resume` carries on from).
 */
export function resumeState(history: readonly LogRecord[], runId: string) {
  const usage = zeroUsage();
  let steps = 0;
  for (const record of history) {
    if (record.run_id !== runId || record.kind !== 'assistant') continue;
    steps = Math.max(steps, record.step);
    addUsage(usage, record.usage);
  }
  return { steps, usage, pending: pendingToolCalls(history, runId) };
}
