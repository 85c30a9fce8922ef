import type * as z from 'zod';

/** The HTTP status of each error code: the code decides the status, never the throw site. */
const STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  budget_reached: 402,
  forbidden: 403,
  user_suspended: 403,
  not_found: 404,
  agent_not_found: 404,
  session_not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  limit_reached: 413,
  too_many_requests: 429,
  /** A credential, session or webhook over its rate limit; the response carries `retry-after`. */
  rate_limited: 429,
  internal: 500,
  model_error: 502,
  /** A service Zero calls on the caller's behalf (GitHub) failed or could not be reached. */
  upstream_error: 502,
  model_not_configured: 503,
} as const;

/** Stable, machine-readable error codes shared by the API, the events and the CLI. */
export type ErrorCode = keyof typeof STATUS;

/** Every error code, in the order of the status table. */
export const ERROR_CODES = Object.keys(STATUS) as ErrorCode[];

/** The HTTP status an error with this code answers. */
export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

/**
 * A base for an error class with a `name` and a static `isInstance` that
 * recognises its instances across package copies (a Symbol.for marker, as the
 * AI SDK does), where `instanceof` fails: `class PathError extends defineErrorClass('PathError') {}`.
 */
export function defineErrorClass<Name extends string>(name: Name) {
  const marker = Symbol.for(`zero.error.${name}`);
  return class extends Error {
    override readonly name: Name = name;
    constructor(message?: string) {
      super(message);
      Object.defineProperty(this, marker, { value: true });
    }

    static isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
    }
  };
}

/**
 * The one error type thrown at Zero's edges. Inside the loop failures are data
 * (tool results, error events); a ZeroError is what the HTTP edge maps to its code's status.
 */
export class ZeroError extends defineErrorClass('ZeroError') {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { field?: string; [key: string]: unknown } = {},
  ) {
    super(message);
  }

  get status(): number {
    return statusOf(this.code);
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

/** A 400 for one field: the message is `<field>: <problem>`. */
export const invalidField = (field: string, problem: string) => new ZeroError('invalid_request', `${field}: ${problem}`, { field });
/** A 401: no credential, or one that is refused. */
export const unauthorized = (message: string, field?: string) => new ZeroError('unauthorized', message, field ? { field } : {});
/** A 403: the caller is known but may not do this. */
export const forbidden = (message: string, field?: string) => new ZeroError('forbidden', message, field ? { field } : {});
/** A 404 for something named by `field`. */
export const notFound = (message: string, field?: string) => new ZeroError('not_found', message, field ? { field } : {});
/** A 409: the state changed or forbids this; `details` name what holds it. */
export const conflict = (message: string, details?: Record<string, unknown>) => new ZeroError('conflict', message, details);
/** A 413: a body, message or archive over its limit. */
export const tooLarge = (message: string, field?: string) => new ZeroError('payload_too_large', message, field ? { field } : {});

/** Describes a zod failure in one sentence that names the offending field. */
export function describeZodError(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { field: '', message: 'invalid input' };
  // An unknown key's issue sits on the object that holds it: the field at fault is the key itself.
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const field = path.map(String).join('.');
  // A record's bad key: the key's own problem, not zod's generic "Invalid key in record".
  const message = issue.code === 'unrecognized_keys' ? 'is not a field this request takes' : issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return { field, message: field ? `${field}: ${message}` : message };
}

/** Turns a zod failure into a 400 ZeroError naming the field. */
export function invalidRequest(error: z.ZodError): ZeroError {
  const { field, message } = describeZodError(error);
  return new ZeroError('invalid_request', message, { field });
}
