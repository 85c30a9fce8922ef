import { EventSourceParserStream } from 'eventsource-parser/stream';
import { reconnectEventSchema, streamEventSchema, type StreamEvent } from '@zero/agent/wire';
import { ZeroProtocolError } from './errors';

/** A frame of one of Zero's SSE streams: an event with its `id:`, or the live view's hint to reconnect. */
export type SseFrame = { kind: 'event'; id?: string; event: StreamEvent } | { kind: 'reconnect'; after: string | null };

/**
 * Reads an SSE response into Zero's events, each parsed with the wire's
 * schema. Comments (padding, keep-alives) are skipped by the parser. Ends
 * when the body ends; a dropped connection rejects (the caller reconnects).
 */
export async function* readFrames(response: Response, signal?: AbortSignal): AsyncGenerator<SseFrame> {
  if (!response.body) throw new ZeroProtocolError('the stream has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    while (!signal?.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value.event === 'reconnect') {
        yield { kind: 'reconnect', after: reconnectEventSchema.parse(JSON.parse(value.data)).after };
        continue;
      }
      if (value.event && value.event !== 'message') continue;
      const parsed = streamEventSchema.safeParse(safeJson(value.data));
      // An event type this client does not know yet is skipped rather than ending the stream.
      if (!parsed.success) continue;
      yield { kind: 'event', ...(value.id ? { id: value.id } : {}), event: parsed.data };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
