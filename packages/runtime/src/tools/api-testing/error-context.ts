/**
 * ZAP's `ExtractErrorContext`: what an error response says (its message, its type, the fields a
 * validation error names) and the source lines around each frame of its stack trace.
 */

/** What an error body says of itself. */
export interface ErrorContext {
  message?: string;
  type?: string;
  /** Fields a validation error names: FastAPI's `detail[].loc`, express-validator's `errors[].path`, Rails' `errors.<field>`. */
  fields: { field: string; message: string }[];
}

const MESSAGE_KEYS = ['message', 'error_description', 'errorMessage', 'detail', 'msg', 'title', 'error'];
const TYPE_KEYS = ['type', 'error_type', 'exception', 'exc_type', 'name', 'code', 'class'];
const MAX_FIELDS = 30;
const MAX_VALUE = 500;

/** Reads the error's message, type and fields from a JSON body (also under `error: {…}`); empty for text that is not JSON. */
export function extractErrorContext(body: string): ErrorContext {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return { fields: [] };
  }
  if (!isRecord(document)) return { fields: [] };
  const nested = isRecord(document.error) ? document.error : undefined;
  const context: ErrorContext = { fields: [] };
  const message = firstString(document, MESSAGE_KEYS) ?? (nested && firstString(nested, MESSAGE_KEYS));
  const type = firstString(document, TYPE_KEYS) ?? (nested && firstString(nested, TYPE_KEYS));
  if (message) context.message = message;
  if (type) context.type = type;
  for (const source of [document.detail, document.errors, nested?.errors, nested?.details]) collectFields(source, context.fields);
  context.fields.splice(MAX_FIELDS);
  return context;
}

/** Lines `line - radius` … `line + radius` of a file, numbered, the frame's own line marked with `>`. */
export function linesAround(text: string, line: number, radius: number): string | undefined {
  const lines = text.split(/\r?\n/);
  if (line < 1 || line > lines.length) return undefined;
  const first = Math.max(1, line - radius);
  const last = Math.min(lines.length, line + radius);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${clip(lines[n - 1]!, 300)}`);
  return out.join('\n');
}

function collectFields(source: unknown, out: ErrorContext['fields']): void {
  if (Array.isArray(source)) {
    for (const item of source) {
      if (!isRecord(item)) continue;
      const where = Array.isArray(item.loc) ? item.loc.map(String).join('.') : firstString(item, ['field', 'path', 'param', 'property', 'pointer', 'name']);
      const message = firstString(item, ['msg', 'message', 'detail', 'error']);
      if (where && message) out.push({ field: clip(where, 200), message });
    }
  } else if (isRecord(source)) {
    for (const [field, value] of Object.entries(source)) {
      const messages = (Array.isArray(value) ? value : [value]).filter((m): m is string => typeof m === 'string');
      if (messages.length) out.push({ field: clip(field, 200), message: clip(messages.join('; '), MAX_VALUE) });
    }
  }
}

function firstString(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' && value.trim()) return clip(value.trim(), MAX_VALUE);
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
