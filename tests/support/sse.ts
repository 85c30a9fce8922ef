import { EventSourceParserStream } from 'eventsource-parser/stream';
import { streamEventSchema, type StreamEvent } from '@zero/agent/wire';
import { DEV } from './harness';

/** An event as received, with its SSE `id:` as `event_id`. */
export type ReceivedEvent = StreamEvent & { event_id?: string };

/**
 * Reads an SSE response into events, as a browser's EventSource would parse
 * it. Each event is parsed with the wire's schema: a server that sends a
 * malformed event fails the test that reads it.
 */
export async function* readSse(response: Response, signal?: AbortSignal): AsyncGenerator<ReceivedEvent> {
  if (!response.body) throw new Error('response has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    while (!signal?.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value.event && value.event !== 'message') continue;
      const parsed = streamEventSchema.safeParse(JSON.parse(value.data));
      if (!parsed.success) throw new Error(`malformed event ${value.data}: ${parsed.error.message}`);
      yield { ...parsed.data, ...(value.id ? { event_id: value.id } : {}) };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * POSTs a streamed chat and reads it until `until` sees an event. Returns the
 * session id, the events so far, and `rest()` to read the remainder (not read
 * unless asked: a test may kill the server instead).
 */
export async function chatUntil(baseUrl: string, body: Record<string, unknown>, until: (event: ReceivedEvent) => boolean, headers: Record<string, string> = DEV) {
  const response = await fetch(`${baseUrl}/api/v2/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (!response.ok) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  const events: ReceivedEvent[] = [];
  let sessionId = '';
  const stream = readSse(response);
  for (let next = await stream.next(); !next.done; next = await stream.next()) {
    events.push(next.value);
    if (next.value.type === 'start') sessionId = next.value.session_id;
    if (until(next.value)) break;
  }
  const rest = async () => {
    for (let next = await stream.next(); !next.done; next = await stream.next()) events.push(next.value);
    return events;
  };
  return { sessionId, events, rest };
}

/** POSTs a chat message with `stream: true` and collects every event until the stream ends. */
export async function chatStream(baseUrl: string, body: Record<string, unknown>, headers: Record<string, string> = DEV) {
  const response = await fetch(`${baseUrl}/api/v2/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ stream: true, ...body }),
  });
  if (!response.ok) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  const events: ReceivedEvent[] = [];
  for await (const event of readSse(response)) events.push(event);
  return { response, events };
}
