/** Types of grep-scan.mjs, the worker side of grep's scan. */

/** What a scan thread is started with, under `workerData[GREP_SCAN]`. */
export interface GrepScanOptions {
  pattern: string;
  caseInsensitive: boolean;
  mode: 'files_with_matches' | 'content' | 'count';
  /** Lines of context around each match (content mode). */
  context: number;
  maxResults: number;
  maxLineChars: number;
  /** Largest compiled program accepted (re2js `programSize()`). */
  maxProgramSize: number;
}

/** Posted to the thread, one per file, in order. */
export interface GrepScanFile {
  path: string;
  bytes: Uint8Array;
}

/** Posted by the thread. */
export type GrepScanReply =
  | { type: 'ready' }
  | { type: 'refused'; message: string }
  | { type: 'file'; out: string[]; matched: boolean; full: boolean };

export declare const grepScanModuleUrl: string;
export declare const GREP_SCAN: 'zero-grep-scan';
