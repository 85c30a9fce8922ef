import { parse as parseYaml } from 'yaml';

export type FrontmatterRead =
  | { ok: true; data: unknown; lenient?: { yamlError: string } }
  | { ok: false; yamlError: string };

const TOP_LEVEL_KEY = /^([A-Za-z_][\w-]*):(?:[ \t]+|$)/;

/**
 * Reads an agent file's frontmatter as YAML. Claude Code also accepts files
 * that are not valid YAML, most often an unquoted `description:` holding
 * `Examples: <example>Context: …` (a `: ` inside a plain scalar). When strict
 * YAML fails, the given top-level keys are read one by one, as Claude Code
 * does: each key's lines are parsed as YAML on their own, and a value that is
 * still not YAML is taken as the raw text after the colon.
 */
export function readFrontmatter(text: string, keys: readonly string[]): FrontmatterRead {
  try {
    return { ok: true, data: parseYaml(text) };
  } catch (error) {
    const yamlError = (error as Error).message.trimEnd();
    const data = readKeysLineByLine(text, new Set(keys));
    return data ? { ok: true, data, lenient: { yamlError } } : { ok: false, yamlError };
  }
}

/** Each top-level `key:` line with the indented or blank lines that follow it; undefined when no wanted key is there. */
function readKeysLineByLine(text: string, keys: ReadonlySet<string>): Record<string, unknown> | undefined {
  const entries: { key: string; lines: string[] }[] = [];
  for (const line of text.split(/\r?\n/)) {
    const key = TOP_LEVEL_KEY.exec(line)?.[1];
    if (key !== undefined) entries.push({ key, lines: [line] });
    else entries.at(-1)?.lines.push(line);
  }
  const data: Record<string, unknown> = {};
  for (const { key, lines } of entries) {
    if (keys.has(key) && !(key in data)) data[key] = readEntry(key, lines);
  }
  return Object.keys(data).length ? data : undefined;
}

function readEntry(key: string, lines: string[]): unknown {
  try {
    const parsed: unknown = parseYaml(lines.join('\n'));
    if (parsed && typeof parsed === 'object' && key in parsed) return (parsed as Record<string, unknown>)[key];
  } catch {
    // Not YAML even on its own: the raw text, as Claude Code reads it.
  }
  const first = lines[0]!.slice(lines[0]!.indexOf(':') + 1);
  return [first, ...lines.slice(1)].map((line) => line.trim()).filter(Boolean).join('\n');
}
