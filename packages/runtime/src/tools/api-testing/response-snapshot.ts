import { createTwoFilesPatch } from 'diff';
import * as z from 'zod';
import type { HttpExchange } from '../http-request-send';

/**
 * What a regression check compares of a response: its status, the headers of interest and its body
 * (parsed JSON, or text). A baseline (`baselines/<name>.json`) is the snapshot a person accepted as
 * normal; a snapshot (`snapshots/<name>.json`) is what the latest check saw. Both are stored after
 * http_request's scrubbing, so no secret the request named is in them.
 */
export const responseSnapshotSchema = z.object({
  v: z.literal(1),
  request: z.string(),
  method: z.string(),
  url: z.string(),
  captured_at: z.string(),
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  /** `json`: `body` is the parsed document; `text`: `body` is the text. */
  body_kind: z.enum(['json', 'text']),
  body: z.unknown(),
});
export type ResponseSnapshot = z.output<typeof responseSnapshotSchema>;

/**
 * Headers whose change is a change of the API's contract; the rest (date, etag, server, request ids)
 * change on every call. `content-type` is compared without its parameters.
 */
export const HEADERS_OF_INTEREST = ['content-type', 'location', 'cache-control', 'www-authenticate', 'allow', 'access-control-allow-origin', 'deprecation', 'sunset'] as const;

/** Most characters of a text body a snapshot keeps. */
export const MAX_SNAPSHOT_TEXT = 200_000;

/** The snapshot of one exchange, with the fields the request ignores left out. */
export function snapshotOf(request: string, exchange: HttpExchange, ignore: readonly string[] = [], now = new Date()): ResponseSnapshot {
  const headers: Record<string, string> = {};
  for (const name of HEADERS_OF_INTEREST) {
    const value = exchange.headers[name];
    if (value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(', ') : value;
    headers[name] = name === 'content-type' ? joined.split(';')[0]!.trim().toLowerCase() : joined;
  }
  const json = exchange.contentType === 'application/json' || exchange.contentType.endsWith('+json') ? parseJson(exchange.body) : undefined;
  const snapshot: ResponseSnapshot = {
    v: 1,
    request,
    method: exchange.method,
    url: exchange.url,
    captured_at: now.toISOString(),
    status: exchange.status,
    headers,
    ...(json ? { body_kind: 'json' as const, body: json.value } : { body_kind: 'text' as const, body: exchange.body.slice(0, MAX_SNAPSHOT_TEXT) }),
  };
  return withoutIgnored(snapshot, ignore);
}

/** One difference between a baseline and a snapshot, at a dotted path (`status`, `headers.location`, `body.user.name`). */
export interface SnapshotChange {
  path: string;
  kind: 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
}

/** Most changes reported of one comparison; the count says how many there were. */
const MAX_CHANGES = 100;

/** What changed from `baseline` to `current`: status, headers of interest, and the body (JSON by path, text as a unified diff). */
export function compareSnapshots(baseline: ResponseSnapshot, current: ResponseSnapshot): { changes: SnapshotChange[]; textDiff?: string } {
  const changes: SnapshotChange[] = [];
  if (baseline.status !== current.status) changes.push({ path: 'status', kind: 'changed', before: baseline.status, after: current.status });
  for (const name of new Set([...Object.keys(baseline.headers), ...Object.keys(current.headers)])) {
    const before = baseline.headers[name];
    const after = current.headers[name];
    if (before === after) continue;
    changes.push(before === undefined ? { path: `headers.${name}`, kind: 'added', after } : after === undefined ? { path: `headers.${name}`, kind: 'removed', before } : { path: `headers.${name}`, kind: 'changed', before, after });
  }
  if (baseline.body_kind === 'json' && current.body_kind === 'json') {
    compareJson('body', baseline.body, current.body, changes);
    return { changes };
  }
  const before = baseline.body_kind === 'json' ? JSON.stringify(baseline.body, null, 2) : String(baseline.body);
  const after = current.body_kind === 'json' ? JSON.stringify(current.body, null, 2) : String(current.body);
  if (baseline.body_kind !== current.body_kind) changes.push({ path: 'body', kind: 'changed', before: `(${baseline.body_kind})`, after: `(${current.body_kind})` });
  if (before === after) return { changes };
  if (baseline.body_kind === current.body_kind) changes.push({ path: 'body', kind: 'changed' });
  return { changes, textDiff: createTwoFilesPatch('baseline', 'current', `${before}\n`, `${after}\n`, undefined, undefined, { context: 2 }) };
}

/** The changes as lines a person and the model read, at most MAX_CHANGES of them. */
export function describeChanges(changes: readonly SnapshotChange[]): string[] {
  const shown = changes.slice(0, MAX_CHANGES).map((change) => {
    if (change.kind === 'added') return `+ ${change.path}: ${show(change.after)} (added)`;
    if (change.kind === 'removed') return `- ${change.path}: ${show(change.before)} (removed)`;
    return change.before === undefined && change.after === undefined ? `~ ${change.path} changed` : `~ ${change.path}: ${show(change.before)} → ${show(change.after)}`;
  });
  if (changes.length > MAX_CHANGES) shown.push(`[${changes.length - MAX_CHANGES} more changes not shown]`);
  return shown;
}

function compareJson(path: string, before: unknown, after: unknown, out: SnapshotChange[]): void {
  if (out.length > MAX_CHANGES) return;
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const inner = `${path}.${key}`;
      if (!Object.hasOwn(after, key)) out.push({ path: inner, kind: 'removed', before: before[key] });
      else if (!Object.hasOwn(before, key)) out.push({ path: inner, kind: 'added', after: after[key] });
      else compareJson(inner, before[key], after[key], out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      if (i >= after.length) out.push({ path: `${path}.${i}`, kind: 'removed', before: before[i] });
      else if (i >= before.length) out.push({ path: `${path}.${i}`, kind: 'added', after: after[i] });
      else compareJson(`${path}.${i}`, before[i], after[i], out);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, kind: 'changed', before, after });
}

/** The snapshot without the fields `ignore` names (`headers.<name>`, `body.<key>…`). */
function withoutIgnored(snapshot: ResponseSnapshot, ignore: readonly string[]): ResponseSnapshot {
  if (ignore.length === 0) return snapshot;
  const copy = structuredClone(snapshot);
  for (const path of ignore) {
    const [root, ...rest] = path.split('.');
    if (root === 'headers' && rest.length === 1) delete copy.headers[rest[0]!.toLowerCase()];
    if (root === 'body' && rest.length > 0 && copy.body_kind === 'json') deletePath(copy.body, rest);
  }
  return copy;
}

function deletePath(value: unknown, path: string[]): void {
  let node = value;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(node) && !Array.isArray(node)) return;
    node = (node as Record<string, unknown>)[key];
  }
  const last = path.at(-1)!;
  if (isRecord(node) && Object.hasOwn(node, last)) delete node[last];
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
