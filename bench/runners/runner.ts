import type { StoreConfig } from '@zero/core';

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
  /** Zero only: what its stores have written and the time spent waiting on DynamoDB. */
  persistence?(): { writes: number; bytes: number; ms: number };
}

export interface RunnerEnv {
  fakeUrl: string;
  store: StoreConfig;
  agentsDir: string;
  /** The system prompt's blocks (Zero builds the same from the agent file). */
  system: string[];
}

export type Config = 'default' | 'expert';

export const EPHEMERAL = { type: 'ephemeral' as const };
