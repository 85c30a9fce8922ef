/**
 * Removes secret values from text the model, an event, a stored record or a log will see. A server
 * that was sent a secret may reflect it in another form, so each value is scrubbed in every form
 * listed by `secretForms`: as it is, JSON-escaped, URL-encoded, base64 and base64url (also inside a
 * longer encoded text, at each of the three byte alignments), hex, `%XX`, `\xXX` and `\uXXXX` for
 * every byte or character, HTML-escaped and as decimal or hex character references, and reversed.
 *
 * Scrubbing cannot be complete: a value split across two answers, encoded twice, compressed,
 * encrypted, shuffled or spelled out in words passes through. Only not sending a secret to a host
 * keeps that host from reflecting it (see `tools/http-secrets.ts`).
 */

/** Forms shorter than this are left alone (other than the value itself): they would match unrelated text. */
const MIN_FORM_CHARS = 8;

/** Every form of `value` the scrubber removes: `exact` ones case for case, `anyCase` ones (hex digits) in any letter case. */
export function secretForms(value: string): { exact: string[]; anyCase: string[] } {
  const bytes = Buffer.from(value, 'utf8');
  const codePoints = [...value].map((char) => char.codePointAt(0)!);
  const units = Array.from({ length: value.length }, (_, i) => value.charCodeAt(i));
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const exact = [
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    ...base64Forms(bytes, 'base64'),
    ...base64Forms(bytes, 'base64url'),
    value.replace(/[&<>"']/g, (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[char]};`),
    value.replace(/[&<>"']/g, (char) => `&#x${hex(char.charCodeAt(0), 2)};`),
    codePoints.map((point) => `&#${point};`).join(''),
    [...value].reverse().join(''),
  ];
  const anyCase = [
    bytes.toString('hex'),
    [...bytes].map((byte) => `%${hex(byte, 2)}`).join(''),
    [...bytes].map((byte) => `\\x${hex(byte, 2)}`).join(''),
    units.map((unit) => `\\u${hex(unit, 4)}`).join(''),
    codePoints.map((point) => `&#x${hex(point, 2)};`).join(''),
  ];
  const keep = (forms: string[]) => [...new Set(forms)].filter((form) => form !== value && form.length >= MIN_FORM_CHARS);
  return { exact: [value, ...keep(exact)], anyCase: keep(anyCase) };
}

/**
 * The value in base64 (or base64url): whole, with and without padding, and the part that stays the
 * same wherever the value sits in a longer encoded text (`Basic <user:secret>`, a base64 JSON body):
 * for each of the three byte alignments, the characters that encode the value's bytes alone.
 */
function base64Forms(bytes: Buffer, alphabet: 'base64' | 'base64url'): string[] {
  const whole = bytes.toString(alphabet);
  const forms = [whole, whole.replace(/=+$/, '')];
  for (const shift of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(shift), bytes]).toString(alphabet);
    // The first group holds the bytes before the value; the last partial group, the bytes after it.
    forms.push(shifted.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4));
  }
  return forms;
}

/**
 * The secrets one tool call, connection or run knows, each with the marker that takes its place
 * (`[secret NAME]`, or `[redacted]` for a value without a name, such as an OAuth token received).
 * `add` may be called while it is in use: the next `scrub` sees the new value.
 */
export class SecretScrubber {
  private readonly markers = new Map<string, string>();
  private compiled?: { pattern: RegExp; marker: string }[];

  /** Adds a value to scrub (an empty value is ignored; a value added twice keeps its first marker). */
  add(value: string, name?: string): this {
    if (value && !this.markers.has(value)) {
      this.markers.set(value, name ? `[secret ${name}]` : '[redacted]');
      this.compiled = undefined;
    }
    return this;
  }

  /** The text with every form of every secret replaced by its marker. */
  scrub(text: string): string {
    let out = text;
    for (const { pattern, marker } of this.patterns()) out = out.replace(pattern, () => marker);
    return out;
  }

  /** A JSON value with every string in it, keys included, scrubbed (a copy; the value is not changed). */
  scrubJson<T>(value: T): T {
    if (typeof value === 'string') return this.scrub(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.scrubJson(item)) as T;
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.scrub(key), this.scrubJson(item)])) as T;
    return value;
  }

  private patterns(): { pattern: RegExp; marker: string }[] {
    // A longer secret first, so that one containing another is replaced whole; within a secret, its longest forms first.
    this.compiled ??= [...this.markers]
      .sort(([a], [b]) => b.length - a.length)
      .map(([value, marker]) => {
        const { exact, anyCase } = secretForms(value);
        const forms = [
          ...exact.map((form) => ({ form, source: escapeRegExp(form) })),
          // Hex digits (and the x of `&#x`, the u of `\u`) in either case.
          ...anyCase.map((form) => ({ form, source: escapeRegExp(form).replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`) })),
        ].sort((a, b) => b.form.length - a.form.length);
        return { pattern: new RegExp(forms.map((f) => f.source).join('|'), 'g'), marker };
      });
    return this.compiled;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
