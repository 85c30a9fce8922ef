import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * The code blocks of Zero's Markdown docs, with the marks that say what the docs-examples test does
 * with them (docs/contributing.md, "Documentation examples"). A mark is an HTML comment on the
 * lines just before a fenced block (blank lines between are allowed):
 *
 * - `<!-- run -->`: the block runs against a local Zero, `$ZERO_URL` and `$ZERO_KEY` set: a shell script, or a
 *   TypeScript program (`ts`) run with tsx from the repository's node_modules.
 * - `<!-- skip: <reason> -->`: the block talks to Zero but cannot run here; the reason is required.
 * - `<!-- model: <JSON array of fake turns> -->` (with `run`): what the fake model answers while the block runs.
 * - `<!-- expect -->`: the block is the output the run block before it must print (see `matchesExpected`).
 */
export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  mark: 'run' | 'skip' | 'expect' | 'none';
  reason?: string;
  model?: unknown[];
  /** For a run block: the expect block that follows it, if any. */
  expect?: DocBlock;
}

const MARK = /^<!--\s*(run|expect|skip:\s*(.+?)|model:\s*(.+?))\s*-->$/;

/** README.md and every page under docs/, except the per-branch notes (docs/notes-*.md) not yet folded in. */
export function docFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  const docs = walk(join(root, 'docs')).filter((file) => !/^notes-/.test(relative(join(root, 'docs'), file)));
  return [join(root, 'README.md'), ...docs.sort()].map((file) => relative(root, file));
}

/** The fenced blocks of one Markdown file, in order, each with its marks; a malformed mark throws, naming its line. */
export function parseBlocks(root: string, file: string): DocBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let pending: { mark?: DocBlock['mark']; reason?: string; model?: unknown[] } = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const comment = MARK.exec(line.trim());
    if (comment) {
      if (comment[1] === 'run' || comment[1] === 'expect') pending.mark = comment[1];
      else if (comment[2] !== undefined) Object.assign(pending, { mark: 'skip', reason: comment[2] });
      else {
        const model = JSON.parse(comment[3]!) as unknown;
        if (!Array.isArray(model)) throw new Error(`${file}:${i + 1}: <!-- model: --> takes a JSON array of turns`);
        pending.model = model;
      }
      continue;
    }
    if (line.trim().startsWith('<!--') && /\b(run|skip|expect|model)\b/.test(line)) throw new Error(`${file}:${i + 1}: a mark the docs-examples test does not read: ${line.trim()}`);
    const fence = /^(\s*)(```+|~~~+)\s*([\w-]*)/.exec(line);
    if (!fence) {
      if (line.trim() !== '') pending = {};
      continue;
    }
    const close = new RegExp(`^\\s*${fence[2]}\\s*$`);
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !close.test(lines[i]!); i++) body.push(lines[i]!.slice(fence[1]!.length));
    const block: DocBlock = { file, line: start + 1, lang: fence[3]!, code: body.join('\n'), mark: pending.mark ?? 'none', reason: pending.reason, model: pending.model };
    if (block.mark === 'expect') {
      const previous = blocks.at(-1);
      if (previous?.mark !== 'run') throw new Error(`${file}:${start + 1}: an <!-- expect --> block must follow a <!-- run --> block`);
      previous.expect = block;
    }
    if (block.model && block.mark !== 'run') throw new Error(`${file}:${start + 1}: <!-- model: --> marks a <!-- run --> block only`);
    blocks.push(block);
    pending = {};
  }
  return blocks;
}

/**
 * Whether a block talks to a Zero (so it must be marked run or skip): a shell block with a request to
 * Zero's URL or a `zero` command, or a program that points a client at Zero.
 */
export function talksToZero(block: DocBlock): boolean {
  if (block.mark === 'expect') return false;
  const shell = ['sh', 'bash', 'shell', 'console', ''].includes(block.lang);
  if (shell && /\bcurl\b|\$ZERO_URL|127\.0\.0\.1:8787|localhost:8787|lambda-url/.test(block.code)) return true;
  if (shell && /^\s*(\$\s+)?(npx\s+)?zero(\s|$)/m.test(block.code)) return true;
  return ['ts', 'js', 'typescript', 'javascript', 'tsx', 'python', 'py'].includes(block.lang) && /ZERO_URL|127\.0\.0\.1:8787|localhost:8787|\/api\/v2\/|baseURL/.test(block.code);
}

/**
 * What a run block must print: its `# → <output>` (or `// → <output>`) comment lines, then the lines of its expect block.
 * Each is matched in order against the block's output with whitespace ignored, `…` (or `...`)
 * standing for any text.
 */
export function expectedLines(block: DocBlock): string[] {
  const inline = block.code.split('\n').flatMap((line) => /(?:#|\/\/)\s*→\s*(.+)$/.exec(line)?.[1] ?? []);
  const after = block.expect?.code.split('\n').filter((line) => line.trim() !== '') ?? [];
  return [...inline, ...after];
}

/** Where each expected line failed to match, in order (empty when the output matches). */
export function unmatched(output: string, expected: string[]): string[] {
  const text = output.replace(/\s+/g, '');
  let from = 0;
  const missing: string[] = [];
  for (const line of expected) {
    const pattern = line
      .replace(/\s+/g, '')
      .split(/…|\.\.\./)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*?');
    const match = new RegExp(pattern, 'g');
    match.lastIndex = from;
    const found = match.exec(text);
    if (!found) missing.push(line);
    else from = found.index + found[0].length;
  }
  return missing;
}

/** GitHub's anchor of a heading. */
const slug = (heading: string) => heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-');

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchorsOf(file: string): Set<string> {
  let fence = false;
  const anchors = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = !fence && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(slug(heading[1]!));
  }
  return anchors;
}

/** Links of a page (outside code blocks) to a file or heading of the repository that does not exist, as `file: target`. */
export function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8').replace(/(```|~~~)[\s\S]*?\1/g, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!) || target!.includes('…')) continue;
    const [path, anchor] = target!.split('#');
    const linked = path ? normalize(join(dirname(join(root, file)), path)) : join(root, file);
    if (!existsSync(linked) || (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor))) broken.push(`${file}: ${target}`);
  }
  return broken;
}
