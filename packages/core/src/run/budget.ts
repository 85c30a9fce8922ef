import type { BudgetScope, Usage } from '../wire';

/** A spent budget: which, and the words the run's `done` gives. */
export interface BudgetStop {
  budget: BudgetScope;
  reason: string;
}

/**
 * What a run may spend (see `budgets/`): checked before each model call, and
 * told each model call's usage as it is recorded. A delegated run shares its
 * caller's. `check` rejects only when the counters cannot be read (the run
 * ends with an error then); `spend` never throws.
 */
export interface RunBudget {
  /** The budget that is spent, if one is: the run then stops with `budget_reached`. */
  check(): Promise<BudgetStop | undefined>;
  /** Counts a model call's usage (a step's, a compaction's); not awaited by the caller. */
  spend(usage: Usage): void;
}

/** A top-level run's budget: the run is listed as active until `ended` (see `budgets/`). */
export interface ActiveRunBudget extends RunBudget {
  /** The run ended here: `finished` when it is over (not handed over or waiting), and its tool calls by tool, for the usage counters. */
  ended(end?: { finished: boolean; toolCalls: ReadonlyMap<string, number> }): Promise<void>;
}
