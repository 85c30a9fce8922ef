/** A tool call's input in a few words: the field that says what it acts on, or compact JSON. */
export function summariseInput(input: unknown, max = 60): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    for (const key of ['path', 'file_path', 'pattern', 'query', 'url', 'agent_id', 'project_id', 'command', 'text', 'entry']) {
      if (typeof record[key] === 'string') return clip(`${record[key]}`, max);
    }
  }
  return clip(JSON.stringify(input) ?? '', max);
}

/** A tool result in one line: its first line, and how many more there are. */
export function summariseResult(content: string, max = 60): string {
  const lines = content.split('\n').filter((l) => l.trim());
  if (lines.length === 0) return '(empty)';
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
  return `${clip(lines[0]!.trim(), max)}${more}`;
}

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
