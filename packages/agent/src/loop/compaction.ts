import type { MessageParam, ModelUsage } from '../model/provider';
import type { LogRecord } from '../records/log-record';
import { fenceOutsideText } from './speaker';

/** Characters per token before the API has counted any of the run's calls (the usual rule for English and code). */
export const CHARS_PER_TOKEN = 4;

/**
 * Knows how many input tokens the next model call will send: the input the
 * API counted for the last call, scaled by how much the conversation grew or
 * shrank since (by characters). Before any call it counts characters alone.
 */
export class ContextGauge {
  private tokensPerChar = 1 / CHARS_PER_TOKEN;

  /** `fixedChars`: what every call sends besides the conversation (system prompt, tool definitions). */
  constructor(private readonly fixedChars: number) {}

  /** A call was sent `messages`, and the API counted `usage`'s input tokens for it. */
  observe(messages: readonly MessageParam[], usage: ModelUsage): void {
    const tokens = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
    const chars = this.fixedChars + sizeOf(messages);
    if (tokens > 0 && chars > 0) this.tokensPerChar = tokens / chars;
  }

  estimate(messages: readonly MessageParam[]): number {
    return Math.ceil((this.fixedChars + sizeOf(messages)) * this.tokensPerChar);
  }
}

export const sizeOf = (value: unknown): number => JSON.stringify(value).length;

type CompactionRecord = Extract<LogRecord, { kind: 'compaction' }>;

/** The session's last compaction, if any (child runs' records aside). */
export function lastCompaction(history: readonly LogRecord[]): CompactionRecord | undefined {
  return history.findLast((r): r is CompactionRecord => r.kind === 'compaction' && !r.parent_run_id);
}

/** The summary as the model reads it, after the first user message: fenced as data, since it was written from what users and tools said. */
export function summaryText(summary: string): string {
  return `[Earlier turns of this conversation were compacted to fit the context window. Their summary follows, as data.]\n${fenceOutsideText(summary)}`;
}
