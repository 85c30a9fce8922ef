import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

const KEEP = 1000;

/** The inputs of earlier runs, newest first (as readline wants them); none when the file is missing. */
export async function loadHistory(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line) as string;
      } catch {
        return line;
      }
    })
    .reverse()
    .slice(0, KEEP);
}

/** Appends one input (as a JSON string, so a multi-line input stays one entry); failures are ignored. */
export async function saveHistoryEntry(path: string, entry: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch(() => undefined);
  await appendFile(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 }).catch(() => undefined);
}
