/** One entry of a memory store's index: a path and its size, never its content. */
export interface MemoryEntry {
  path: string;
  size: number;
}

/**
 * What a run's system prompt says of its agent's memory: the store's index, or why there is none.
 * The runtime reads it from its memory store (`memory/session-memory.ts`); the loop only writes it into the prompt.
 */
export interface MemoryIndex {
  /** e.g. `your own memory (user "alice")`. */
  store?: string;
  entries?: MemoryEntry[];
  unavailable?: string;
}
