/**
 * `@zero/client`: a typed client of Zero's HTTP API, on `fetch`, with every
 * answer parsed by the wire schemas of `@zero/core/wire` and runs streamed
 * over SSE with reconnection by `Last-Event-ID`.
 */
export { ZeroClient, type ZeroClientOptions, type ChatInput, type ApprovalChoice } from './client';
export { RunStream, type ReceivedEvent, type FollowOptions } from './follow';
export { ZeroApiError, ZeroConnectionError, ZeroProtocolError } from './errors';
export { readFrames, type SseFrame } from './sse';
