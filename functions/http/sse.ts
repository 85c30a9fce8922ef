import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { IdentifiedEvent } from '@zero/agent/events/recorder';

/**
 * Lambda function URLs hold back a response's first small writes (they flush
 * after roughly 15 KB), so a client could wait for its first event until the
 * model has said a lot. An SSE comment of this size, written first, goes out
 * at once; EventSource parsers ignore comments.
 */
export const FIRST_FLUSH_PADDING = `:${' '.repeat(16 * 1024)}\n\n`;

export interface SseOptions {
  /** Work that must finish before the response ends (keeps a Lambda invocation alive). */
  finished?: Promise<unknown>;
  /** A comment every this many ms keeps proxies from closing an idle stream. */
  heartbeatMs?: number;
  /** The stream ends cleanly after this long, with a hint to reconnect from the last id. */
  maxDurationMs?: number;
}

/**
 * The frame every streamed response shares: a padding comment first (so a
 * function URL flushes at once), keep-alive comments, the body's iteration
 * stopped when the client leaves or the stream's time is up, and the
 * response held open until `finished` (runs go on without a reader; the
 * invocation ends only when they are persisted).
 */
export function sseFrame(
  c: Context,
  body: (stream: SSEStreamingApi, signal: AbortSignal) => Promise<void>,
  options: SseOptions & { onTimeUp?: (stream: SSEStreamingApi) => Promise<unknown> } = {},
) {
  return streamSSE(c, async (stream) => {
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const heartbeat = setInterval(() => {
      if (!stream.closed && !stream.aborted) void stream.write(': keep-alive\n\n').catch(() => undefined);
    }, options.heartbeatMs ?? 15_000);
    const deadline = options.maxDurationMs
      ? setTimeout(() => {
          controller.abort();
          void options.onTimeUp?.(stream);
        }, options.maxDurationMs)
      : undefined;
    try {
      await stream.write(FIRST_FLUSH_PADDING);
      await body(stream, controller.signal);
    } finally {
      controller.abort();
      clearInterval(heartbeat);
      clearTimeout(deadline);
      await options.finished;
    }
  });
}

/** Zero's SSE protocol: one JSON event per `data:` line, each with an `id:` a client can resume from. */
export function streamEvents(c: Context, open: (signal: AbortSignal) => AsyncIterable<IdentifiedEvent>, options: SseOptions = {}) {
  let lastId: string | undefined;
  return sseFrame(
    c,
    async (stream, signal) => {
      for await (const { event_id, ...event } of open(signal)) {
        if (stream.aborted || stream.closed || signal.aborted) break;
        lastId = event_id;
        await stream.writeSSE({ id: event_id, data: JSON.stringify(event) });
      }
    },
    { ...options, onTimeUp: (stream) => stream.writeSSE({ event: 'reconnect', data: JSON.stringify({ after: lastId ?? null }) }) },
  );
}
