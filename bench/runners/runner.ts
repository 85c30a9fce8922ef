import type { StoreConfig } from '@zero/runtime/store/clients';
import type { TracedPath } from '../support/db-trace';

/** What a runner may call back while it answers a turn. */
export interface TurnHooks {
  /** Each text delta as the consumer receives it. */
  onText?(delta: string): void;
}

export interface TurnResult {
  /** Milliseconds from sending the message to the first event (Zero: `start`). */
  firstEventMs?: number;
}

/** One conversation, held the way each framework holds it. */
export interface BenchSession {
  send(message: string, hooks?: TurnHooks): Promise<TurnResult>;
}

/** A way to run the agent loop: Zero or a peer, in one configuration. */
export interface Runner {
  name: string;
  open(): BenchSession;
  close(): Promise<void>;
  /** Zero only: its server process, measured apart from the clients. */
  server?: {
    /** Its base URL, e.g. to fill its table through the API. */
    url: string;
    stats(): Promise<ServerStats>;
    /** Collects garbage and starts the memory peak afresh; returns the current usage. */
    resetMemory(): Promise<{ rss: number; heapUsed: number }>;
    /** Records which code path sends each DynamoDB request, until `stopTrace`. */
    startTrace(): Promise<void>;
    stopTrace(): Promise<TracedPath[]>;
    /** Profiles the server's CPU until `stopProfile`, which writes the profile to `file`. */
    startProfile(): Promise<void>;
    stopProfile(file: string): Promise<string>;
  };
}

/** Zero's server process: CPU so far, what its stores wrote, time waiting on DynamoDB, memory peaks (bytes). */
export interface ServerStats {
  cpuMs: number;
  persistence: { writes: number; bytes: number; ms: number };
  peakRss: number;
  peakHeap: number;
}

export interface RunnerEnv {
  fakeUrl: string;
  store: StoreConfig;
  /** A folder holding the bench agent; Zero syncs it into its bucket. */
  agentsDir: string;
  /** The system prompt's blocks (Zero builds the same from the agent file). */
  system: string[];
}

export type Config = 'default' | 'expert';

export const EPHEMERAL = { type: 'ephemeral' as const };
