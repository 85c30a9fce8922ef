import type { LogRecord } from '@zero/agent/records/log-record';

/**
 * The active branch of a log: a `user_message` with `branch_from` (an edit or
 * a regenerate) drops the records after `branch_from` that came before it.
 * What it drops stays stored: the whole log is every branch.
 */
export function activeBranch(records: LogRecord[]): LogRecord[] {
  const out: LogRecord[] = [];
  for (const record of records) {
    if (record.kind === 'user_message' && record.branch_from !== undefined) {
      while (out.length > 0 && out.at(-1)!.seq > record.branch_from) out.pop();
    }
    out.push(record);
  }
  return out;
}

/** The branch points of a log: each edit or regenerate, with the records it set aside. */
export function branchPoints(records: LogRecord[]): { seq: number; branch_from: number; author?: { id: string; name?: string }; at: string; set_aside: number[] }[] {
  const points = [];
  const seen: LogRecord[] = [];
  for (const record of records) {
    if (record.kind === 'user_message' && record.branch_from !== undefined) {
      const from = record.branch_from;
      const setAside = activeBranch(seen).filter((r) => r.seq > from).map((r) => r.seq);
      points.push({ seq: record.seq, branch_from: from, ...(record.author ? { author: record.author } : {}), at: record.at, set_aside: setAside });
    }
    seen.push(record);
  }
  return points;
}
