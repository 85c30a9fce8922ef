import type { BudgetScope, Usage } from '../wire';

/** A spent budget: which, and the words the run's `done` gives. */
export interface BudgetStop {
  budget: BudgetScope;
  reason: string;
}

/** A model call's reservation on the budgets it counts against (opaque to the loop); its `spend` settles it. */
export interface BudgetHold {
  readonly id: string;
}

/**
 * What a run may spend (see `budgets/`): checked before each model call, the
 * call's most reserved, and told each model call's usage as it is recorded. A
 * delegated run shares its caller's. `check` and `reserve` reject only when
 * the counters cannot be read (the run ends with an error then); `spend` never throws.
 */
export interface RunBudget {
  /** The budget that is spent, if one is: the run then stops with `budget_reached`. */
  check(): Promise<BudgetStop | undefined>;
  /**
   * Before a model call: reserves `maxCostUsd` (what the call may cost at most) on every budget with a limit,
   * so that calls in flight together never start past a limit. Waits while calls in flight hold what is left
   * of a budget (until they settle, or their holds expire); answers a stop once a budget is spent. `signal`
   * ends the wait without a hold.
   */
  reserve(maxCostUsd: number, signal?: AbortSignal): Promise<{ stop: BudgetStop } | { hold?: BudgetHold }>;
  /** Counts a model call's usage (a step's, a compaction's) and settles its hold; not awaited by the caller. A hold with no usage is let go. */
  spend(usage: Usage, hold?: BudgetHold): void;
}

/** A top-level run's budget: the run is listed as active until `ended` (see `budgets/`). */
export interface ActiveRunBudget extends RunBudget {
  /** The run ended here: `finished` when it is over (not handed over or waiting), and its tool calls by tool, for the usage counters. */
  ended(end?: { finished: boolean; toolCalls: ReadonlyMap<string, number> }): Promise<void>;
}
