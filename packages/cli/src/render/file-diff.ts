import type { Colors } from './theme';

/** How many lines of a diff are shown; the rest is counted in a last line. */
const MAX_LINES = 40;
/** Above this many lines on a side, an edit is shown as removed then added (no line matching). */
const MAX_MATCHED = 400;

type DiffLine = { op: ' ' | '-' | '+'; text: string };

/**
 * The change a successful `edit_file` or `write_file` call made, as a coloured unified diff (the
 * lines removed in red with `-`, the lines added in green with `+`, a line of context around):
 * an edit's `old_string` against its `new_string`, a write's whole content as added. Undefined for
 * any other call, or one whose input is not the tool's.
 */
export function fileDiff(name: string, input: unknown, c: Colors): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { path, content, old_string: from, new_string: to } = input as Record<string, unknown>;
  if (typeof path !== 'string') return undefined;
  let lines: DiffLine[];
  if (name === 'edit_file' && typeof from === 'string' && typeof to === 'string') lines = withContext(diffLines(splitLines(from), splitLines(to)));
  else if (name === 'write_file' && typeof content === 'string') lines = splitLines(content).map((text) => ({ op: '+', text }));
  else return undefined;
  const added = lines.filter((l) => l.op === '+').length;
  const removed = lines.filter((l) => l.op === '-').length;
  const header = `${c.bold(`--- ${path}`)}\n${c.bold(`+++ ${path}`)}\n${c.cyan(`@@ ${name === 'write_file' ? 'new content' : 'edit'}: +${added} -${removed} @@`)}`;
  const shown = lines.slice(0, MAX_LINES).map(({ op, text }) => (op === '+' ? c.green(`+${text}`) : op === '-' ? c.red(`-${text}`) : c.dim(` ${text}`)));
  if (lines.length > MAX_LINES) shown.push(c.dim(`… ${lines.length - MAX_LINES} more lines`));
  return [header, ...shown].join('\n');
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** A line diff by longest common subsequence (small inputs: an edit's two strings). */
function diffLines(a: string[], b: string[]): DiffLine[] {
  if (a.length > MAX_MATCHED || b.length > MAX_MATCHED) return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: '-', text: a[i++]! });
    else out.push({ op: '+', text: b[j++]! });
  }
  while (i < a.length) out.push({ op: '-', text: a[i++]! });
  while (j < b.length) out.push({ op: '+', text: b[j++]! });
  return out;
}

/** Keeps one line of context on each side of a change; longer unchanged stretches are left out. */
function withContext(lines: DiffLine[]): DiffLine[] {
  const near = (k: number) => lines.slice(Math.max(0, k - 1), k + 2).some((l) => l.op !== ' ');
  return lines.filter((line, k) => line.op !== ' ' || near(k));
}
