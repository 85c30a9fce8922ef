/**
 * Every encoding in which a hostile server was seen to reflect a secret back (issue 28: 41 tried,
 * these are the ones a scrubber can list), written out here independently of Zero's scrubber.
 * Each is a whole text a server might send; `core` is the part of it that must never reach the model.
 */
export function secretReflections(value: string): { encoding: string; text: string; core: string }[] {
  const bytes = Buffer.from(value, 'utf8');
  const each = (f: (byte: number) => string) => [...bytes].map(f).join('');
  const hex2 = (n: number) => n.toString(16).padStart(2, '0');
  const forms: Record<string, string> = {
    raw: value,
    json: JSON.stringify(value).slice(1, -1),
    'url-encoded': encodeURIComponent(value),
    'form-encoded': new URLSearchParams({ v: value }).toString().slice(2),
    '%XX every byte, upper': each((b) => `%${hex2(b).toUpperCase()}`),
    '%xx every byte, lower': each((b) => `%${hex2(b)}`),
    'hex lower': bytes.toString('hex'),
    'hex upper': bytes.toString('hex').toUpperCase(),
    '\\xXX': each((b) => `\\x${hex2(b)}`),
    base64: bytes.toString('base64'),
    'base64 unpadded': bytes.toString('base64').replace(/=+$/, ''),
    base64url: bytes.toString('base64url'),
    'base64 of "user:<secret>" (Basic)': Buffer.from(`user:${value}`).toString('base64'),
    'base64 of "x<secret>y"': Buffer.from(`x${value}y`).toString('base64'),
    'base64url of "ab<secret>"': Buffer.from(`ab${value}`).toString('base64url'),
    'HTML-escaped': value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;'),
    'HTML decimal entities': [...value].map((c) => `&#${c.codePointAt(0)};`).join(''),
    'HTML hex entities': [...value].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(''),
    'HTML hex entities, upper': [...value].map((c) => `&#X${c.codePointAt(0)!.toString(16).toUpperCase()};`).join(''),
    '\\uXXXX': [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    '\\uXXXX, upper': [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join(''),
    reversed: [...value].reverse().join(''),
  };
  // A base64 text that holds more than the value may keep a few characters at each end of it.
  return Object.entries(forms).map(([encoding, text]) => ({ encoding, text, core: text.slice(6, -6) }));
}
