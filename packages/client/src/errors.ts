import { defineErrorClass } from '@zero/agent/errors';

/** Zero refused a request: its HTTP status and its error body's stable `code`, `message` and `field`. */
export class ZeroApiError extends defineErrorClass('ZeroApiError') {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** The whole `error` object of the body, with any detail beyond code and message. */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Zero could not be reached (refused, timed out, the connection dropped and did not come back). */
export class ZeroConnectionError extends defineErrorClass('ZeroConnectionError') {
  constructor(
    readonly url: string,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** Zero answered with something that is not what its wire schemas say (a proxy's page, another server). */
export class ZeroProtocolError extends defineErrorClass('ZeroProtocolError') {}
