import { parse } from 'shell-quote';

/** A command line split into a program and its arguments, never seen by a shell. */
export interface ParsedCommand {
  argv: [string, ...string[]];
  /** The programs it runs: the command itself and any it starts (`find -exec`, `env`), each with its arguments. */
  programs: string[][];
}

/** Why a command line is refused, phrased for the model. */
export type CommandLineResult = { ok: true; command: ParsedCommand } | { ok: false; error: string };

const NO_SHELL = 'run_command has no shell: run one program, with its arguments quoted as needed';

/**
 * Splits a command line into argv the way a POSIX shell would quote it, and
 * refuses everything only a shell could do: pipes, redirections, `;`, `&&`,
 * `||`, `&`, subshells, backticks, `$(…)`, variables, globs, brace and tilde
 * expansion, comments and more than one line. Refused before anything runs,
 * so the model hears why instead of getting a literal `*` passed to `ls`.
 */
export function parseCommandLine(line: string): CommandLineResult {
  const denied = deniedLine(line);
  if (denied) return { ok: false, error: denied };
  const unsafe = shellOnlySyntax(line);
  if (unsafe) return { ok: false, error: `${unsafe}: ${NO_SHELL}.` };
  // Variables were refused above; single-quoted `$x` stays literal either way.
  const tokens = parse(line, (name) => `$${name}`);
  const argv: string[] = [];
  for (const token of tokens) {
    if (typeof token === 'string') {
      argv.push(token);
      continue;
    }
    if ('comment' in token) return { ok: false, error: `comments ("#…") are refused: ${NO_SHELL}.` };
    if (token.op === 'glob') return { ok: false, error: `globs ("${token.pattern}") are refused: nothing expands them; ${NO_SHELL}. Quote the pattern, or use find -name.` };
    return { ok: false, error: `${operatorName(token.op)} ("${token.op}") ${token.op === '(' || token.op === ')' ? 'is' : 'are'} refused: ${NO_SHELL}.` };
  }
  if (argv.length === 0 || argv[0] === '') return { ok: false, error: 'the command is empty.' };
  const programs = programsOf(argv);
  if (typeof programs === 'string') return { ok: false, error: programs };
  return { ok: true, command: { argv: argv as [string, ...string[]], programs } };
}

function operatorName(op: string): string {
  if (op === '|' || op === '|&') return 'pipes';
  if (op === ';' || op === ';;') return 'command separators';
  if (op === '&&' || op === '||') return `chained commands`;
  if (op === '&') return 'background jobs';
  if (op === '(' || op === ')' || op === '<(' || op === '>(') return 'subshells';
  return 'redirections';
}

/**
 * Scans the line as a shell would read its quotes and names the first
 * construct only a shell could carry out, or undefined. Inside single quotes
 * everything is literal; inside double quotes `$` and backticks still expand.
 */
function shellOnlySyntax(line: string): string | undefined {
  if (/[\u0000\u007f]|[\u0001-\u0008\u000b-\u001f]/.test(line)) return 'control characters are refused';
  let quote: "'" | '"' | undefined;
  let wordStart = true;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const next = line[i + 1];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      if (next === '\n') return 'more than one line is refused';
      i++;
      wordStart = false;
      continue;
    }
    if (c === '`') return 'backticks (command substitution) are refused';
    if (c === '$' && next === '(') return '"$(…)" (command substitution) is refused';
    if (c === '$' && next !== undefined && /[A-Za-z_{0-9@*#?!$-]/.test(next)) return `variables ("$${next === '{' ? '{…}' : next}…") are refused: nothing expands them`;
    if (quote === '"') {
      if (c === '"') quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      wordStart = false;
      continue;
    }
    if (c === '\n' || c === '\r') return 'more than one line is refused';
    if (c === ' ' || c === '\t') {
      wordStart = true;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return `globs ("${c}") are refused: nothing expands them; quote the character if it is meant literally`;
    if (c === '~' && wordStart) return 'tilde expansion ("~") is refused: give paths relative to the project copy';
    if (c === '{') {
      const close = line.indexOf('}', i);
      const inner = close > i ? line.slice(i + 1, close) : '';
      if (!/\s/.test(inner) && (inner.includes(',') || inner.includes('..'))) return `brace expansion ("{${inner}}") is refused: nothing expands it`;
    }
    wordStart = false;
  }
  if (quote) return `the ${quote === "'" ? 'single' : 'double'} quote is not closed`;
  return undefined;
}

/** Programs that start the program named in their arguments. */
const LAUNCHERS = new Set(['env', 'xargs', 'nice', 'nohup', 'timeout', 'stdbuf', 'time', 'command', 'exec', 'setsid', 'chroot', 'ionice', 'taskset', 'flock', 'watch']);

/**
 * The command and the programs it starts: `find … -exec prog … ;` and `env
 * [NAME=value…] prog …` are taken apart so their programs meet the same
 * allowlist and denylist; other launchers can only be refused, since their
 * options cannot be told from the program they start.
 */
function programsOf(argv: string[]): string[][] | string {
  const name = programName(argv[0]!);
  if (name === 'find') {
    const out = [argv];
    for (let i = 1; i < argv.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(argv[i]!)) continue;
      const end = argv.findIndex((a, j) => j > i && (a === ';' || a === '+'));
      if (end === -1) return `find ${argv[i]} needs its closing ";" (quoted, e.g. \\;) or "+".`;
      if (end === i + 1) return `find ${argv[i]} names no program.`;
      const inner = programsOf(argv.slice(i + 1, end));
      if (typeof inner === 'string') return inner;
      out.push(...inner);
      i = end;
    }
    return out;
  }
  if (name === 'env') {
    let i = 1;
    while (i < argv.length) {
      const a = argv[i]!;
      if (a === '-i' || a === '--ignore-environment' || a === '-0' || a === '--null' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
      else if (a === '-u' || a === '--unset') i += 2;
      else if (a.startsWith('--unset=') || (a.startsWith('-u') && a.length > 2)) i++;
      else if (a === '--') {
        i++;
        break;
      } else if (a.startsWith('-')) return `env ${a} is refused: only -i, -u and NAME=value may come before the program it runs.`;
      else break;
    }
    if (i >= argv.length) return [argv];
    const inner = programsOf(argv.slice(i));
    return typeof inner === 'string' ? inner : [argv, ...inner];
  }
  if (LAUNCHERS.has(name)) return [argv];
  return [argv];
}

/** The program's name as the allowlist knows it: `/usr/bin/ls` and `ls` are both `ls`. */
export function programName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}

/** Whether a program starts another one named in arguments Zero cannot take apart. */
export function isOpaqueLauncher(program: string): boolean {
  return LAUNCHERS.has(programName(program)) && programName(program) !== 'env';
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'csh', 'tcsh', 'fish', 'ash', 'busybox', 'su', 'sudo', 'doas', 'pkexec', 'runuser']);
const DISK = /^(mkfs(\..+)?|mke2fs|mkswap|fdisk|sfdisk|parted|wipefs|shutdown|reboot|halt|poweroff)$/;

/** Patterns caught on the raw line, so the refusal names the danger rather than its syntax. */
function deniedLine(line: string): string | undefined {
  if (/:\s*\(\s*\)\s*\{/.test(line) || /(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1/.test(line)) return 'denied: this looks like a fork bomb.';
  if (/\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|da|z|k)?sh\b/.test(line)) return 'denied: piping a download into a shell ("curl … | sh") is never run.';
  return undefined;
}

/**
 * The denylist every mode keeps, `full` included: shells and privilege
 * changes, disk formatting and power, `dd` onto or from devices, `rm -r` of
 * the root or home, `chmod -R 777`. Returns why, or undefined.
 */
export function deniedProgram(argv: readonly string[]): string | undefined {
  const name = programName(argv[0]!);
  const args = argv.slice(1);
  if (SHELLS.has(name)) return `denied: "${name}" is a shell or changes user; run_command runs programs directly, never through a shell or as another user.`;
  if (DISK.test(name)) return `denied: "${name}" formats disks or powers the machine off.`;
  if (name === 'dd' && args.some((a) => /^(if|of)=\/dev\//.test(a))) return 'denied: dd from or onto a device (e.g. dd if=/dev/zero).';
  if (name === 'rm') {
    const recursive = args.some((a) => a === '--recursive' || /^-[a-zA-Z]*[rR]/.test(a));
    if (recursive && args.some((a) => a === '/' || a === '/*' || a === '~' || a === '.' || a === '..' || a === '--no-preserve-root')) return 'denied: recursive rm of the root, home or current folder.';
  }
  if (name === 'chmod' && args.some((a) => a === '-R' || a === '--recursive' || /^-[a-zA-Z]*R/.test(a)) && args.some((a) => /^0?777$/.test(a) || /^a\+rwx$/.test(a))) {
    return 'denied: chmod -R 777.';
  }
  return undefined;
}
