import type { LogRecord } from '../store/records';
import type { Role, StreamEvent } from '@zero/agent/wire';

/**
 * A deployment may keep the model's thinking from a session's viewers
 * (`ZERO_HIDE_THINKING_FROM_VIEWERS`): their streams leave out `thinking`
 * events and their history leaves out thinking blocks. Editors and owners,
 * who act on what the agent does, see it all.
 */
export function hidesThinking(deps: { hideThinkingFromViewers?: boolean }, role: Role): boolean {
  return !!deps.hideThinkingFromViewers && role === 'viewer';
}

/** The history without thinking blocks in assistant records. */
export function historyWithoutThinking<R extends Pick<LogRecord, 'kind'>>(history: readonly R[]): R[] {
  return history.map((record) => {
    if (record.kind !== 'assistant') return record;
    const content = (record as unknown as { content: { type: string }[] }).content;
    return { ...record, content: content.filter((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking') };
  });
}

/** A stream of events without its `thinking` events. */
export async function* eventsWithoutThinking<E extends Pick<StreamEvent, 'type'>>(events: AsyncIterable<E>): AsyncGenerator<E> {
  for await (const event of events) if (event.type !== 'thinking') yield event;
}
