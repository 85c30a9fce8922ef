import * as z from 'zod';
import { HEADER_NAME, METHODS, type HttpRequestInput } from '../http-request';
import { onFirstUse } from '@zero/agent/on-first-use';

/**
 * ZAP's library of saved requests: `requests/<name>.yaml` in a project (its Postman collection),
 * committed with the sources or written by `save_request`. A file holds one request:
 *
 * ```yaml
 * description: One user, by id
 * method: GET
 * url: https://api.example.com/users/1
 * headers: { authorization: "Bearer {{secret:ZERO_HTTP_SECRET_API}}" }
 * body: { name: Ada }          # a mapping or list is sent as JSON, a string as it is
 * expected_status: 200         # or a list: [200, 201]
 * ignore_fields: [body.updated_at]   # left out of baselines and regression checks
 * ```
 */

/** The folder of saved requests, and of baselines and snapshots, in a project. */
export const REQUESTS_FOLDER = 'requests';
export const BASELINES_FOLDER = 'baselines';
export const SNAPSHOTS_FOLDER = 'snapshots';

// The schemas are built on first use: a cold start registers the tools that read them but seldom calls one.
const buildRequestNameSchema = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'must be letters, digits, ".", "_" or "-" (at most 80), e.g. "get-user"')
    .refine((name) => !/\.ya?ml$/i.test(name), 'is the name without ".yaml", e.g. "get-user"');
/** A saved request's name: its file name without `.yaml`. */
export const requestNameSchema = onFirstUse(buildRequestNameSchema);

const buildSavedRequestSchema = () => {
  /** A dotted path into a snapshot a check leaves out: `headers.<name>` or `body.<key>.<index>…`. */
  const fieldPath = z.string().max(300).regex(/^(headers\.[A-Za-z0-9-]+|body(\.[^.\s]+)+)$/, 'must be "headers.<name>" or "body.<key>…", e.g. "body.updated_at"');
  return z.strictObject({
    description: z.string().max(1000).optional(),
    method: z.enum(METHODS, { error: `must be one of ${METHODS.join(', ')}` }).default('GET'),
    url: z.string().min(1).max(4096).refine((url) => URL.canParse(url), 'must be an absolute URL, e.g. https://api.example.com/v1/items'),
    headers: z.record(z.string().regex(HEADER_NAME, 'must be an HTTP header name'), z.string().max(8192)).optional(),
    /** A mapping or list is sent as JSON; a string as it is. */
    body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
    expected_status: z.union([z.number().int().min(100).max(599), z.array(z.number().int().min(100).max(599)).min(1).max(20)]).optional(),
    ignore_fields: z.array(fieldPath).max(50).optional(),
    timeout_seconds: z.number().min(0.1).max(30).optional(),
  });
};
/** One saved request, as its YAML file holds it. */
export const savedRequestSchema = onFirstUse(buildSavedRequestSchema);
export type SavedRequest = z.output<ReturnType<typeof buildSavedRequestSchema>>;

/** A file of the library that could not be read as a request: the file, the field at fault and what is wrong. */
export interface SavedRequestError {
  file: string;
  field: string;
  message: string;
}

/** The project path of a saved request. */
export function requestPath(name: string): string {
  return `${REQUESTS_FOLDER}/${name}.yaml`;
}

/** The saved request name a project path holds, or undefined for another file. */
export function requestNameOf(path: string): string | undefined {
  const match = /^requests\/([^/]+)\.ya?ml$/.exec(path);
  return match && requestNameSchema().safeParse(match[1]).success ? match[1] : undefined;
}

/** The http_request input a saved request sends. */
export function toHttpInput(request: SavedRequest): HttpRequestInput {
  const { method, url, headers, body, timeout_seconds } = request;
  return {
    method,
    url,
    ...(headers ? { headers } : {}),
    ...(body === undefined ? {} : typeof body === 'string' ? { body } : { json: body }),
    ...(timeout_seconds !== undefined ? { timeout_seconds } : {}),
  };
}

/** Whether a status is what the request expects; true when it expects nothing in particular. */
export function statusExpected(request: SavedRequest, status: number): boolean {
  const expected = request.expected_status;
  if (expected === undefined) return true;
  return (Array.isArray(expected) ? expected : [expected]).includes(status);
}
