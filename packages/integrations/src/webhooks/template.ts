/** A `{{ path.to.field }}` placeholder; array elements by index (`commits.0.message`). */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** The longest text one placeholder contributes; a longer value is cut with a marker. */
export const MAX_FIELD_CHARS = 20_000;

export interface RenderedTemplate {
  text: string;
  /** Placeholders the payload had no value for; each is marked `[missing: path]` in the text. */
  missing: string[];
  /** Placeholders whose value was cut at MAX_FIELD_CHARS. */
  cut: string[];
}

/** The value at a dotted path, or undefined. Own properties only, so `__proto__` and `constructor` lead nowhere. */
export function valueAt(payload: unknown, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * Fills a template from a payload. Strings, numbers and booleans appear as
 * text, objects and arrays as JSON; a missing or null field leaves a visible
 * gap `[missing: path]` rather than an empty string the reader cannot notice.
 */
export function renderTemplate(template: string, payload: unknown): RenderedTemplate {
  const missing: string[] = [];
  const cut: string[] = [];
  const text = template.replace(PLACEHOLDER, (_match, path: string) => {
    const value = valueAt(payload, path);
    if (value === undefined || value === null) {
      if (!missing.includes(path)) missing.push(path);
      return `[missing: ${path}]`;
    }
    const rendered = typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (rendered.length <= MAX_FIELD_CHARS) return rendered;
    if (!cut.includes(path)) cut.push(path);
    return `${rendered.slice(0, MAX_FIELD_CHARS)} [cut: ${path} is ${rendered.length} characters]`;
  });
  return { text, missing, cut };
}

/** The placeholders a template names, for checking a hook's configuration. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}
