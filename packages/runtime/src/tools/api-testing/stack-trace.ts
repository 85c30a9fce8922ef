/**
 * ZAP's `ParseStackTrace`: the frames of a stack trace found in an error response (Python, Node,
 * Go, Java, Ruby, PHP), and where each lands in a project's files. Pure functions: the caller gives
 * the text and the project's paths.
 */

export type TraceLanguage = 'python' | 'node' | 'go' | 'java' | 'ruby' | 'php';

/** One frame as the trace names it. */
export interface StackFrame {
  language: TraceLanguage;
  /** The path as written in the trace (a Java frame: the package path plus the file, `com/acme/Api.java`). */
  file: string;
  line: number;
  function?: string;
}

/** A frame and the project file it points at, if any. */
export interface MappedFrame extends StackFrame {
  /** The project path the frame's file is; absent: library code, the runtime's, or a file the project lacks. */
  projectPath?: string;
  /** Why there is no projectPath. */
  outside?: 'library' | 'not in project';
}

/** Most frames read from one text. */
export const MAX_FRAMES = 50;
/** Most characters of an error body read for frames. */
const MAX_TEXT = 500_000;

const PATTERNS: { language: TraceLanguage; pattern: RegExp; frame: (m: RegExpExecArray) => Omit<StackFrame, 'language'> }[] = [
  // File "/srv/app/api.py", line 42, in get_user
  { language: 'python', pattern: /File "([^"\n]+)", line (\d+)(?:, in ([^\s\n]+))?/g, frame: (m) => ({ file: m[1]!, line: +m[2]!, function: m[3] }) },
  // at getUser (/srv/app/routes/users.js:12:7)   at /srv/app/index.js:3:1   at async file:///srv/app/a.mjs:1:2
  {
    language: 'node',
    pattern: /\bat (?:async )?(?:([^\s()]+(?: \[as [^\]\n]+\])?) \()?((?:file:\/\/)?[^\s()]+\.(?:[cm]?js|[cm]?ts|jsx|tsx)):(\d+):\d+\)?/g,
    frame: (m) => ({ file: m[2]!, line: +m[3]!, function: m[1] }),
  },
  // main.getUser(...)\n\t/srv/app/handlers.go:42 +0x1d
  { language: 'go', pattern: /(?:^|\n)(?:([\w./*()-]+)\([^\n]*\)\n)?\s*((?:[A-Za-z]:)?[^\s:()"]+\.go):(\d+)(?: \+0x[0-9a-f]+)?/g, frame: (m) => ({ file: m[2]!, line: +m[3]!, function: m[1] }) },
  // at com.acme.api.UserController.get(UserController.java:42)
  {
    language: 'java',
    pattern: /\bat ((?:[\w$]+\.)*)([\w$<>]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala)):(\d+)\)/g,
    frame: (m) => ({ file: `${m[1]!.replaceAll('.', '/')}${m[4]!}`, line: +m[5]!, function: `${m[1]}${m[2]}.${m[3]}` }),
  },
  // /srv/app/controllers/users_controller.rb:12:in `show'
  { language: 'ruby', pattern: /([^\s:'"`]+\.rb):(\d+):in [`']([^'\n]+)'/g, frame: (m) => ({ file: m[1]!, line: +m[2]!, function: m[3] }) },
  // #0 /var/www/src/Api.php(42): App\Api->get()   or   in /var/www/src/Api.php on line 42
  { language: 'php', pattern: /(?:#\d+ ([^\s()]+\.php)\((\d+)\)|in ([^\s]+\.php) on line (\d+))/g, frame: (m) => ({ file: (m[1] ?? m[3])!, line: +(m[2] ?? m[4])! }) },
];

/** Paths of installed packages and language runtimes: a frame there is not the project's code. */
const LIBRARY = /(^|\/)(node_modules|site-packages|dist-packages|vendor|gems|\.venv|venv|lib\/python\d|pkg\/mod|GOROOT)\/|^(node:|internal\/)|^<|^\/usr\/(local\/)?(lib|go)\/|^runtime\/|^java\/|^javax\/|^jdk\/|^sun\/|^org\/springframework\//;

/**
 * The frames of every stack trace in `text`, in the order they appear, each once. A JSON error body
 * is read through its strings, so a trace inside `{"stack": "…\n…"}` is found with its line breaks.
 */
export function parseStackTrace(text: string): StackFrame[] {
  const source = readableText(text.slice(0, MAX_TEXT));
  const found: { at: number; frame: StackFrame }[] = [];
  for (const { language, pattern, frame } of PATTERNS) {
    for (const match of source.matchAll(new RegExp(pattern.source, pattern.flags))) {
      const parsed = frame(match as RegExpExecArray);
      if (!Number.isSafeInteger(parsed.line) || parsed.line < 1) continue;
      found.push({ at: match.index, frame: { language, ...parsed, file: cleanPath(parsed.file), ...(parsed.function ? {} : { function: undefined }) } });
    }
  }
  const seen = new Set<string>();
  const frames: StackFrame[] = [];
  for (const { frame } of found.sort((a, b) => a.at - b.at)) {
    const key = `${frame.file}:${frame.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { function: fn, ...rest } = frame;
    frames.push(fn ? { ...rest, function: fn } : rest);
    if (frames.length === MAX_FRAMES) break;
  }
  return frames;
}

/**
 * Maps each frame to the project file it names: the project path sharing the longest run of
 * trailing segments with the frame's path (`/srv/app/src/api.py` is the project's `src/api.py`),
 * the file name at least; on a tie the shortest path. Library and runtime frames are marked so.
 */
export function mapFramesToProject(frames: readonly StackFrame[], projectPaths: readonly string[]): MappedFrame[] {
  const byName = new Map<string, string[]>();
  for (const path of projectPaths) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  return frames.map((frame) => {
    if (LIBRARY.test(frame.file)) return { ...frame, outside: 'library' as const };
    const segments = frame.file.split('/').filter(Boolean);
    const candidates = byName.get(segments.at(-1) ?? '') ?? [];
    let best: { path: string; score: number } | undefined;
    for (const path of candidates) {
      const score = sharedTail(segments, path.split('/'));
      if (!best || score > best.score || (score === best.score && path.length < best.path.length)) best = { path, score };
    }
    return best ? { ...frame, projectPath: best.path } : { ...frame, outside: 'not in project' as const };
  });
}

function sharedTail(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** `file:///srv/a.js` → `/srv/a.js`, `C:\app\a.py` → `C:/app/a.py`, `./a.py` → `a.py`. */
function cleanPath(path: string): string {
  let clean = path.replace(/^file:\/\//, '').replaceAll('\\', '/');
  while (clean.startsWith('./')) clean = clean.slice(2);
  return clean;
}

/** The text with a JSON document's strings laid out one per line, their escapes undone. */
function readableText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    const strings: string[] = [];
    collectStrings(JSON.parse(trimmed), strings, 0);
    return strings.join('\n');
  } catch {
    return text;
  }
}

function collectStrings(value: unknown, out: string[], depth: number): void {
  if (depth > 50) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out, depth + 1);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, out, depth + 1);
}
