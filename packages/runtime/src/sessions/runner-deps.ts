import type { LoadBudgets } from '../budgets/limits';
import type { LoadRateLimiter } from '../rate-limits/limits';
import type { ModelTiers } from '@zero/agent/model/aliases';
import type { ComplexityRule } from '@zero/agent/model/complexity-routing';
import type { LeaseStore, RunLease } from '../store/lease-store';
import type { InboxMessage, LogRecord, NewLogRecord, SessionMeta } from '../store/records';
import type { RunDeps } from '@zero/agent/loop/loop';
import type { ToolServices } from '../tools/tool';
import type { LocalRuns } from './run-registry';
import type { RunQueue } from './queue';
import type { Strategy } from '@zero/agent/wire';

/** What carrying a session on needs: the run's own deps, its tools' services, the lease and the queue. */
export interface SessionRunnerDeps extends RunDeps, ToolServices {
  leases: LeaseStore;
  runs: LocalRuns;
  /** Where a run that hands over near its time limit is sent to be carried on. */
  queue: RunQueue;
  /** What sessions, users and the deployment may spend (absent: nothing is counted). */
  budgets?: LoadBudgets;
  /** Rate limits per credential, session and webhook, counted in DynamoDB (absent: none is set). */
  rateLimits?: LoadRateLimiter;
  /** Names this process in lease items. */
  instanceId: string;
  defaultAgentId: string;
  defaultModel: string;
  /** The deployment's model of each tier (`ZERO_MODEL_TIERS`). */
  tiers?: ModelTiers;
  /** The operator's complexity rules (`ZERO_COMPLEXITY_RULES`) for tier routing; see model/complexity-routing.ts. */
  complexityRules?: readonly ComplexityRule[];
  /** How often text events are written to the event log at the latest. */
  eventFlushMs?: number;
  /** Time a step may need: a run does not start one with less than this left before its deadline. */
  handoverReserveMs?: number;
  /** How long a call waits for a person's decision before it is denied (`ZERO_APPROVAL_TTL_MS`; 24 h by default). */
  approvalTtlMs?: number;
  /** Viewers do not see the model's thinking (see thinking-visibility.ts). */
  hideThinkingFromViewers?: boolean;
  /** A new session gets a short title from the light tier once its first exchange is complete (see session-title.ts). */
  sessionTitles?: boolean;
  /** A time budget per invocation when the platform gives none (the local server); Lambda's context gives the real one. */
  runBudgetMs?: number;
  /**
   * Called with a run's `run_end` or `run_wait` right before it is appended (while the lease is held);
   * resolves once what reports that ending is durable (subscribers' outbox records, held until the
   * ending is stored), so a process killed just after storing it loses no report. Must not throw.
   */
  onRunEnding?: (ending: EndingRun) => Promise<void>;
  /**
   * Called once a run has ended (not when it hands over), after its `run_end`
   * is durable and while the session's lease is still held. Must not throw.
   */
  onRunFinished?: (finished: FinishedRun) => Promise<void>;
  /** Called when a run waits for people (its `run_wait` is durable, the lease still held). Must not throw. */
  onRunWaiting?: (waiting: FinishedRun) => Promise<void>;
  /**
   * Called once a new session's item is written; resolves once subscribers' deliveries are recorded
   * (so a Lambda that answers next loses none), not when they arrive. Must not throw.
   */
  onSessionCreated?: (session: SessionMeta) => Promise<void>;
}

/** A run about to end (or wait): its session and the record that will say so. */
export interface EndingRun {
  session: SessionMeta;
  runId: string;
  record: Extract<NewLogRecord, { kind: 'run_end' | 'run_wait' }>;
}

/** A run that has ended: its session and the session's log, which ends with the run's `run_end`. */
export interface FinishedRun {
  session: SessionMeta;
  runId: string;
  history: readonly LogRecord[];
}

/** A message as accepted, before it has a place: in the inbox it gets its arrival number, in the log its position. */
export type NewMessage = Omit<InboxMessage, 'message_id'>;

/** A session whose lease this process took for a message (see `acceptMessage`), with what it already knows of it. */
export interface ClaimedSession {
  lease: RunLease;
  takeover: boolean;
  /** The session as accepting the message read (or created) it. */
  session?: SessionMeta;
  /** The session was created with the message: its log is empty. */
  created?: boolean;
  /** The message that claimed the session: recorded first, or, behind a run the log shows unfinished, put in the inbox. */
  message?: NewMessage;
  /** What the message does at a busy session, or one waiting for a person (`interrupt` denies the waiting calls). */
  strategy?: Strategy;
  /** Called once the message is durable, in the log or in the inbox: only then is it acknowledged. */
  onDurable?: (where: 'log' | 'inbox') => void;
}

export interface DriveOptions {
  /** Epoch ms by which this process must be done (Lambda: now + remaining time). */
  deadline?: number;
  /** A lease this process already took for the session (a message that claimed an idle session); used first. */
  claimed?: ClaimedSession;
}
