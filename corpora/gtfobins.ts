import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * The GTFOBins attempts both sandbox kinds are tried with: every entry (file-read, file-write,
 * shell, command, library-load) of every program installed on the sandbox's PATH, in file order.
 */

export const FUNCTIONS = ['file-read', 'file-write', 'shell', 'command', 'library-load'] as const;
const SANDBOX_PATH = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'];

export interface Attempt {
  program: string;
  fn: string;
  code: string;
}

/** Where an attempt's placeholders point: each outside the working copy, except `workspace`. */
export interface Targets {
  /** A canary file the attempt must not read (and must leave as it is). */
  inputFile: string;
  /** A file the attempt must not create. */
  outputFile: string;
  /** A folder the attempt must not change. */
  outputDir: string;
  /** A library the attempt must not load (a canary file too). */
  lib: string;
  /** Where other `/path/to/` placeholders go: the working copy, as the sandbox sees it. */
  workspace: string;
  /** The loopback listener's port (for `12345`, with attacker.com aimed at 127.0.0.1). */
  port: number;
}

function installed(program: string): boolean {
  return SANDBOX_PATH.some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Every attempt of the GTFOBins folder `dir` (`…/gtfobins/_gtfobins`) whose program is installed here. */
export function gtfobinsAttempts(dir: string): Attempt[] {
  const out: Attempt[] = [];
  for (const program of readdirSync(dir).sort()) {
    if (!installed(program)) continue;
    const text = readFileSync(join(dir, program), 'utf8');
    // A YAML document: "---", the entry, "...".
    const front = text.replace(/^---\n/, '').split(/\n\.\.\.\s*(?:\n|$)/)[0]!;
    const functions = (parse(front) as { functions?: Record<string, { code?: string; contexts?: Record<string, { code?: string } | null> }[]> }).functions ?? {};
    for (const fn of FUNCTIONS) {
      for (const entry of functions[fn] ?? []) {
        const codes = new Set([entry.code, entry.contexts?.unprivileged?.code].filter((c): c is string => typeof c === 'string'));
        for (const code of codes) out.push({ program, fn, code });
      }
    }
  }
  return out;
}

/** The attempt's script with its placeholders aimed at `targets`. */
export function aim(attempt: Attempt, targets: Targets): string {
  return attempt.code
    .replaceAll('/path/to/input-file', targets.inputFile)
    .replaceAll('/path/to/output-file', targets.outputFile)
    .replaceAll('/path/to/output-dir', targets.outputDir)
    .replaceAll('/path/to/lib.so', targets.lib)
    .replaceAll('/path/to/command', '/usr/bin/env')
    .replaceAll('/path/to/dir', targets.outputDir)
    .replaceAll('/path/to/', `${targets.workspace}/`)
    .replaceAll(/\bDATA\b/g, 'corpus-data')
    .replaceAll('attacker.com', '127.0.0.1')
    .replaceAll('12345', String(targets.port));
}

/** Every `stride`-th attempt, starting with the first: a deterministic sample spread over programs and functions. */
export function sample<T>(list: T[], stride: number): T[] {
  return list.filter((_, i) => i % stride === 0);
}

/** "N attempts from P installed programs (file-read a, …)". */
export function tally(list: Attempt[]): string {
  const byFunction: Record<string, number> = {};
  for (const attempt of list) byFunction[attempt.fn] = (byFunction[attempt.fn] ?? 0) + 1;
  const programs = new Set(list.map((a) => a.program));
  return `${list.length} attempts from ${programs.size} installed programs (${Object.entries(byFunction)
    .map(([fn, n]) => `${fn} ${n}`)
    .join(', ')})`;
}
