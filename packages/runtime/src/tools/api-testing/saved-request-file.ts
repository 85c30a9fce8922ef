import { parseDocument, stringify } from 'yaml';
import type * as z from 'zod';
import { httpRequestInputSchema } from '../http-request';
import { mentionsSecret } from '../http-secrets';
import { savedRequestSchema, toHttpInput, type SavedRequest, type SavedRequestError } from './saved-request';

/** A saved request's file, read or written (YAML); loaded with the first call of a tool that reads one, not at cold start. */

export type SavedRequestParse = { ok: true; request: SavedRequest } | { ok: false; error: SavedRequestError };

/** Reads one `requests/*.yaml` file; never throws. The request part is checked as http_request checks its input. */
export function parseSavedRequest(file: string, text: string): SavedRequestParse {
  const fail = (field: string, message: string): SavedRequestParse => ({ ok: false, error: { file, field, message } });
  const doc = parseDocument(text, { prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) return fail('(file)', `invalid YAML: ${syntax.message.split('\n')[0]}`);
  const value = doc.toJS() as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('(file)', 'must be a YAML mapping with at least method and url');
  const parsed = savedRequestSchema().safeParse(value);
  if (!parsed.success) return fail(...firstIssue(parsed.error));
  // Refused here rather than at each run: http_request sends secrets in header values only.
  if (mentionsSecret(parsed.data.url)) return fail('url', 'secrets can be referenced in header values only');
  const { body } = parsed.data;
  if (body !== undefined && mentionsSecret(typeof body === 'string' ? body : JSON.stringify(body))) return fail('body', 'secrets can be referenced in header values only');
  const sendable = httpRequestInputSchema().safeParse(toHttpInput(parsed.data));
  if (!sendable.success) {
    const [field, message] = firstIssue(sendable.error);
    return fail(field === 'json' ? 'body' : field, message);
  }
  return { ok: true, request: parsed.data };
}

/** A saved request as YAML, the fields in their documented order. */
export function formatSavedRequest(request: SavedRequest): string {
  const ordered = Object.fromEntries(
    (['description', 'method', 'url', 'headers', 'body', 'expected_status', 'ignore_fields', 'timeout_seconds'] as const)
      .filter((key) => request[key] !== undefined)
      .map((key) => [key, request[key]]),
  );
  return stringify(ordered, { lineWidth: 0 });
}

function firstIssue(error: z.ZodError): [string, string] {
  const issue = error.issues[0]!;
  return [issue.path.map(String).join('.') || '(file)', issue.message];
}
