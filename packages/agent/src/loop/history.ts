import type { ContentBlockParam, MessageParam } from '../model/provider';
import type { LogRecord } from '../records/log-record';
import { lastCompaction, summaryText } from './compaction';
import type { ToolImage } from '../tools/tool';
import { speakerText } from './speaker';
import { attachmentBlocks, type AttachmentData } from './attachment-blocks';

type ToolUse = { id: string; name: string; input: unknown };
type ToolResultContent = string | ({ type: 'text'; text: string } | { type: 'image'; source: { type: 'base64'; media_type: ToolImage['media_type']; data: string } })[];
type ToolResultBlock = { type: 'tool_result'; tool_use_id: string; content: ToolResultContent; is_error?: boolean };

/** A tool result's content as the model is sent it: its text, and its images (if any) as image blocks after it. */
export function toolResultContent(content: string, images: readonly ToolImage[] | undefined): ToolResultContent {
  if (!images?.length) return content;
  return [{ type: 'text', text: content }, ...images.map((image) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: image.media_type, data: image.data } }))];
}

const INTERRUPTED = 'This tool call was interrupted before it returned a result.';

/**
 * Rebuilds the model conversation from the session log. Consecutive turns of
 * one role are merged; tool results (one record per call, or the older
 * per-step record) follow their assistant turn in the order of its calls.
 * A call left without a result by a run that is over is answered with an
 * error result, so the conversation is always well formed; with `openRunId`,
 * that run's last unanswered calls are left open for it to execute (resume).
 *
 * Without `runId` this is the session's conversation: records of child runs
 * (delegated tasks, tagged `parent_run_id`) are left out, since their answers
 * reach it as tool results. With `runId` it is that one run's conversation,
 * e.g. a child run's task and its steps, to resume it.
 */
export function toMessages(records: readonly LogRecord[], options: { openRunId?: string; runId?: string; attachments?: AttachmentData } = {}): MessageParam[] {
  return rebuild(records, options).messages;
}

/** The calls of `runId`'s last assistant turn that have no recorded result (a delegated run's too: its records are its own conversation). */
export function pendingToolCalls(records: readonly LogRecord[], runId: string): ToolUse[] {
  const delegated = records.some((r) => r.run_id === runId && r.parent_run_id);
  return rebuild(records, delegated ? { runId, openRunId: runId } : { openRunId: runId }).pending;
}

function rebuild(all: readonly LogRecord[], options: { openRunId?: string; runId?: string; attachments?: AttachmentData }) {
  let records = options.runId ? all.filter((r) => r.run_id === options.runId) : all.filter((r) => !r.parent_run_id);
  // A compaction: the model reads the first user message, the summary, then the turns after the folded ones.
  const compaction = options.runId ? undefined : lastCompaction(records);
  if (compaction) {
    const first = records.find((r) => r.kind === 'user_message');
    const folded = new Set<string>();
    for (const r of records) {
      if (r.kind === 'user_message') folded.add(r.run_id);
      if (r.kind === 'user_message' && r.run_id === compaction.through_run_id) break;
    }
    const summary = { ...first!, kind: 'user_message', text: summaryText(compaction.summary), author: undefined } as LogRecord;
    records = [first!, summary, ...records.filter((r) => !folded.has(r.run_id))];
  }
  const messages: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', content: ContentBlockParam[]) => {
    if (content.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) (last.content as ContentBlockParam[]).push(...content);
    else messages.push({ role, content: [...content] });
  };

  // The tool calls of the last assistant turn, and the results recorded for them so far.
  let calls: ToolUse[] = [];
  let callsRunId: string | undefined;
  let results = new Map<string, ToolResultBlock>();
  const close = (leaveOpen: boolean) => {
    if (calls.length === 0) return;
    const answered = calls.filter((c) => results.has(c.id)).map((c) => results.get(c.id)!);
    if (leaveOpen) {
      push('user', answered);
      return;
    }
    push(
      'user',
      calls.map((c) => results.get(c.id) ?? { type: 'tool_result' as const, tool_use_id: c.id, content: INTERRUPTED, is_error: true }),
    );
    calls = [];
    results = new Map();
  };

  for (const record of records) {
    switch (record.kind) {
      case 'user_message':
        close(false);
        // A message's images and PDFs follow its text, read from the blobs the run loaded (see loadAttachmentData).
        push('user', [{ type: 'text', text: speakerText(record.text, record.author) }, ...attachmentBlocks(record.attachments ?? [], options.attachments)]);
        break;
      case 'assistant': {
        close(false);
        const content = record.content as unknown as ContentBlockParam[];
        push('assistant', content);
        calls = content.filter((b) => b.type === 'tool_use').map((b) => b as unknown as ToolUse);
        callsRunId = record.run_id;
        break;
      }
      case 'tool_result':
        if (calls.some((c) => c.id === record.tool_use_id)) {
          results.set(record.tool_use_id, {
            type: 'tool_result',
            tool_use_id: record.tool_use_id,
            content: toolResultContent(record.content, record.images),
            ...(record.is_error ? { is_error: true } : {}),
          });
        }
        break;
      case 'tool_results':
        for (const r of record.results) if (calls.some((c) => c.id === r.tool_use_id)) results.set(r.tool_use_id, r);
        close(false);
        break;
      case 'run_end':
        close(false);
        break;
      case 'run_handover':
      case 'compaction':
      case 'void':
      case 'approval_request':
      case 'approval':
      case 'run_wait':
      case 'command':
        break;
    }
  }
  const open = options.openRunId !== undefined && callsRunId === options.openRunId;
  const pending = open ? calls.filter((c) => !results.has(c.id)) : [];
  close(open);
  return { messages, pending };
}

/** A copy of the conversation with a prompt-cache breakpoint on its last block. */
export function withConversationBreakpoint(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (!last || typeof last.content === 'string' || last.content.length === 0) return messages;
  const content = [...last.content];
  const block = content[content.length - 1]!;
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return messages;
  content[content.length - 1] = { ...block, cache_control: { type: 'ephemeral' } } as ContentBlockParam;
  return [...messages.slice(0, -1), { ...last, content } as MessageParam];
}

/** The text of the last assistant turn among `records` (a run's final answer), trimmed. */
export function finalText(records: readonly LogRecord[]): string {
  const last = records.findLast((record) => record.kind === 'assistant');
  return last?.kind === 'assistant' ? textOf(last.content) : '';
}

/** The text blocks of an assistant turn, joined and trimmed. */
export function textOf(content: readonly { type: string; text?: unknown }[]): string {
  return content
    .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
    .join('')
    .trim();
}
