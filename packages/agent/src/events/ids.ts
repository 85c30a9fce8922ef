/** A position in a session's event stream: batch `seq`, event `index` within it. Wire form `"<seq>.<index>"`. */
export interface EventPosition {
  seq: number;
  index: number;
}

export const formatEventId = (p: EventPosition) => `${p.seq}.${p.index}`;

/** Parses `"12.3"` (or `"12"`, meaning all of batch 12); undefined when malformed. */
export function parseEventId(id: string | undefined | null): EventPosition | undefined {
  if (!id) return undefined;
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(id.trim());
  if (!match) return undefined;
  return { seq: Number(match[1]), index: match[2] === undefined ? Number.MAX_SAFE_INTEGER : Number(match[2]) };
}

export const compareEventPositions = (a: EventPosition, b: EventPosition) => a.seq - b.seq || a.index - b.index;
