import type { HistoryRecord } from '@zero/agent/wire';

/** Where a message stands among its versions: the `index`-th (1-based) of `count`, and its neighbours' records. */
export interface MessageVersions {
  index: number;
  count: number;
  /** The history record the versions go on from (each is a message written after it). */
  from: number;
  previous?: number;
  next?: number;
}

/** One path through a session's branches: its records in order, and the versions of each message on it that has others. */
export interface BranchPath {
  records: HistoryRecord[];
  /** By the message's run id. */
  versions: Map<string, MessageVersions>;
  /** The path is the active branch (the one the next message goes on). */
  active: boolean;
}

/**
 * The conversation a person pages to, from every branch's records (`GET /sessions/:id?branches=all`,
 * in log order). Each record follows the one before it in its branch, so the records make a tree: a
 * record goes on from the last one of the branch it was written on, and an edit or a regenerate
 * (a message with `branch_from`) goes on from that record. `chosen` maps a record to the message
 * picked after it; where nothing is picked, the path follows the active branch (the last record's),
 * as the server's history does.
 */
export function branchPath(all: readonly HistoryRecord[], chosen: ReadonlyMap<number, number> = new Map()): BranchPath {
  const children = new Map<number, HistoryRecord[]>();
  const branch: HistoryRecord[] = [];
  for (const record of all) {
    if (record.kind === 'user_message' && record.branch_from !== undefined) {
      while (branch.length > 0 && branch.at(-1)!.seq > record.branch_from) branch.pop();
    }
    const from = branch.at(-1)?.seq ?? 0;
    children.set(from, [...(children.get(from) ?? []), record]);
    branch.push(record);
  }
  const activeSeqs = new Set(branch.map((r) => r.seq));
  const records: HistoryRecord[] = [];
  const versions = new Map<string, MessageVersions>();
  let active = true;
  for (let at = 0; ; ) {
    const next = children.get(at);
    if (!next?.length) break;
    const picked = next.find((r) => r.seq === chosen.get(at)) ?? next.find((r) => activeSeqs.has(r.seq)) ?? next.at(-1)!;
    if (!activeSeqs.has(picked.seq)) active = false;
    if (next.length > 1) {
      const index = next.indexOf(picked);
      versions.set(picked.run_id, { index: index + 1, count: next.length, from: at, previous: next[index - 1]?.seq, next: next[index + 1]?.seq });
    }
    records.push(picked);
    at = picked.seq;
  }
  return { records, versions, active };
}
