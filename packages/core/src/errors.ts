import type * as z from 'zod';

const marker = Symbol.for('zero.error');

/** Stable, machine-readable error codes shared by the API, the events and the CLI. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_json'
  | 'payload_too_large'
  | 'not_found'
  | 'agent_not_found'
  | 'session_not_found'
  | 'conflict'
  | 'too_many_requests'
  | 'model_not_configured'
  | 'model_error'
  | 'limit_reached'
  | 'internal';

/**
 * The one error type thrown at Zero's edges. Inside the loop failures are data
 * (tool results, error events); a ZeroError is what the HTTP edge maps to a status.
 */
export class ZeroError extends Error {
  override readonly name = 'ZeroError';
  readonly [marker] = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number = 400,
    readonly details: { field?: string; [key: string]: unknown } = {},
  ) {
    super(message);
  }

  /** Recognises ZeroErrors across package copies. */
  static isInstance(value: unknown): value is ZeroError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

/** Describes a zod failure in one sentence that names the offending field. */
export function describeZodError(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { field: '', message: 'invalid input' };
  // An unknown key's issue sits on the object that holds it: the field at fault is the key itself.
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const field = path.map(String).join('.');
  const message = issue.code === 'unrecognized_keys' ? 'is not a field this request takes' : issue.message;
  return { field, message: field ? `${field}: ${message}` : message };
}

/** Turns a zod failure into a 400 ZeroError naming the field. */
export function invalidRequest(error: z.ZodError): ZeroError {
  const { field, message } = describeZodError(error);
  return new ZeroError('invalid_request', message, 400, { field });
}
