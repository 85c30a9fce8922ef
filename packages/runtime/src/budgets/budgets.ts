import { ZeroError, invalidField } from '@zero/agent/errors';
import { randomUUID } from 'node:crypto';
import type { ActiveRunBudget, BudgetHold, BudgetStop } from '@zero/agent/loop/budget';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OperationsStore } from '../store/operations-store';
import { UsageStore, type UsageAdded } from '../store/usage-store';
import { SpendStore, committedOf, dayOf, spendKey, toMicros, toUsd, type SpendHold, type SpendScope } from '../store/spend-store';
import type { SpendCounter } from '../store/items/spend-counter';
import type { ActiveRunItem } from '../store/items/operations';
import type { BudgetResponse, BudgetScope, SessionSpend, Usage } from '@zero/agent/wire';
import { addUsage, zeroUsage } from '@zero/agent/events/usage';
import type { BudgetLimits } from './limits';

/** A scope's spend and its limit, in micro-dollars (no limit: `undefined`). */
export interface ScopeSpend {
  spentMicros: number;
  limitMicros?: number;
}

const usd = (micros: number) => `$${Number(toUsd(micros).toFixed(6))}`;

/**
 * How long a counter read with no limit and no hold stands in for reading it again, on this instance: for
 * the next messages' admission and for the first check of the runs they start. A limit an administrator
 * sets applies at once on the instance that set it, and within this on the others.
 */
const ADMITTED_READ_MS = 2_000;

/** The words a refusal or a `done` gives for a spent budget: which, how much, and who can raise it. */
export function budgetReason(scope: BudgetScope, spend: ScopeSpend): string {
  const of = `${usd(spend.spentMicros)} of ${usd(spend.limitMicros ?? 0)}`;
  if (scope === 'session') return `the session's budget is spent (${of}); its owner can raise it with PUT /api/v2/sessions/:id/budget, then send a message to carry on`;
  if (scope === 'user') return `your daily budget is spent (${of} today, UTC); an administrator can raise it with PUT /api/v2/admin/budgets/users/:id`;
  return `the deployment's daily budget is spent (${of} today, UTC); an administrator can raise it with PUT /api/v2/admin/budgets/deployment`;
}

/**
 * Budgets: what sessions, users and the deployment may spend, and what they
 * have spent, kept in DynamoDB counters (see `SpendStore`). A limit kept on a
 * counter item (a session's own budget, an administrator's raise for the day)
 * wins over the deployment's setting.
 */
export class Budgets {
  constructor(
    readonly spend: SpendStore,
    readonly limits: BudgetLimits,
    /** The active runs, audit log and suspensions (the kill switch). */
    readonly operations: OperationsStore,
    /** What runs used, per day, user, agent and session, counted with each step's spend (`GET /usage`). */
    readonly usage: UsageStore,
  ) {}

  /** The limit of a scope given its counter item. */
  limitOf(scope: BudgetScope, counter: SpendCounter): number | undefined {
    if (scope === 'session') {
      const cap = this.limits.sessionMaxMicros;
      const own = counter.limit_micros;
      return own === undefined ? cap : cap === undefined ? own : Math.min(own, cap);
    }
    return counter.limit_micros ?? (scope === 'user' ? this.limits.userDailyMicros : this.limits.deploymentDailyMicros);
  }

  spendOf(scope: BudgetScope, counter: SpendCounter): ScopeSpend {
    return { spentMicros: counter.cost_micros ?? 0, limitMicros: this.limitOf(scope, counter) };
  }

  /** Counters read as messages were admitted, with no limit and no hold: the run each message starts reads them no more. */
  private readonly admitted = new Map<string, { at: number; counter: SpendCounter }>();
  /** When this instance last set a scope's limit: a read begun before then is not kept (it may predate the limit). */
  private readonly limitSetAt = new Map<string, number>();

  /** The first of a user's scopes (their day, then the deployment's) that is spent; read before a message is accepted. */
  async refuseIfSpent(userId: string): Promise<void> {
    const day = dayOf();
    const scopes = [['user', { scope: 'user', userId, day }], ['deployment', { scope: 'deployment', day }]] as const;
    const startedAt = Date.now();
    const reads = await Promise.all(
      scopes.map(async ([name, scope]) => {
        const key = JSON.stringify(spendKey(scope));
        // A scope read just now with no limit is not read again: nothing can be spent against no limit.
        const standing = this.admittedAt(key, startedAt);
        if (standing) return { key, standing, counter: standing, holds: [] };
        const { counter, holds } = await this.spend.inspect(scope);
        return { key, standing, counter: await this.caughtUp(scope, counter), holds };
      }),
    );
    const now = Date.now();
    // Oldest first (a Map keeps insertion order): those past their use are dropped as new ones come.
    for (const [key, read] of this.admitted) {
      if (now - read.at < ADMITTED_READ_MS) break;
      this.admitted.delete(key);
    }
    for (const [i, [scope]] of scopes.entries()) {
      const { key, standing, counter, holds } = reads[i]!;
      const spend = this.spendOf(scope, counter);
      // A fresh read with no limit stands for 2 s from its start; none begun before this instance last set the scope's limit.
      if (!standing && spend.limitMicros === undefined && holds.length === 0 && startedAt > (this.limitSetAt.get(key) ?? -1)) {
        this.admitted.delete(key);
        this.admitted.set(key, { at: startedAt, counter });
      }
      if (spend.limitMicros !== undefined && spend.spentMicros >= spend.limitMicros) {
        throw new ZeroError('budget_reached', budgetReason(scope, spend), { budget: scope, spent_usd: toUsd(spend.spentMicros), limit_usd: toUsd(spend.limitMicros) });
      }
    }
  }

  /** Refuses a session budget over the deployment's maximum (a 400 naming `max_cost_usd`). */
  checkSessionBudget(maxCostUsd: number | null): number | undefined {
    const cap = this.limits.sessionMaxMicros;
    const micros = maxCostUsd === null ? undefined : toMicros(maxCostUsd);
    if (cap !== undefined && micros !== undefined && micros > cap) throw invalidField('max_cost_usd', `may be at most ${usd(cap)} in this deployment (ZERO_BUDGET_SESSION_MAX_USD)`);
    return micros;
  }

  /** A counter read as a message was admitted, just now, that had no limit and no hold; `undefined`: read it. */
  admittedRead(scope: SpendScope): SpendCounter | undefined {
    return this.admittedAt(JSON.stringify(spendKey(scope)), Date.now());
  }

  private admittedAt(key: string, now: number): SpendCounter | undefined {
    const read = this.admitted.get(key);
    return read && now - read.at < ADMITTED_READ_MS ? read.counter : undefined;
  }

  /** Sets a session's budget (its owner, or a hook at creation), capped by the deployment's maximum. */
  async setSessionBudget(sessionId: string, maxCostUsd: number | null, by: string): Promise<SpendCounter> {
    return this.spend.setLimit({ scope: 'session', sessionId }, this.checkSessionBudget(maxCostUsd), by);
  }

  /**
   * A day counter that has a limit, caught up with what its day's usage cells spent uncounted: runs that
   * found no limit on a day add their spend to their usage cell only (one write fewer a step each), so as a
   * limit comes to apply (an administrator sets it, or a deployment's limit is first read) the counter takes
   * that spend in, once (`again`: whatever is new since it last did; a run longer than `ADMITTED_READ_MS`
   * does so as it ends). The price: a shorter run that began while its day had no limit, and ends after one
   * was set, is counted in that day's usage but not its budget, unless an administrator sets the limit again.
   */
  async caughtUp(scope: SpendScope, counter: SpendCounter, again = false, uncounted?: number): Promise<SpendCounter> {
    if (scope.scope === 'session' || this.limitOf(scope.scope, counter) === undefined) return counter;
    if (counter.from_usage_micros !== undefined && !again) return counter;
    let known = counter;
    // Two catching up at once: one adds, the other reads what it added (and tries once more when `again`).
    for (let attempt = 0; attempt < 3; attempt++) {
      const caught = await this.spend.catchUp(scope, (attempt === 0 ? uncounted : undefined) ?? (await this.uncounted(scope)), known);
      if (caught) return caught;
      known = await this.spend.read(scope);
      if (!again) break;
    }
    return known;
  }

  /** What a day's usage cells spent that its counter did not get (in micro-dollars). */
  private uncounted(scope: Exclude<SpendScope, { scope: 'session' }>): Promise<number> {
    return this.usage.uncounted(scope.day, scope.scope === 'user' ? { userId: scope.userId } : 'deployment');
  }

  /** Sets today's limit (UTC) of a user or of the deployment (administrators); `null`: the configured one again. */
  async setDailyBudget(scope: 'user' | 'deployment', userId: string | undefined, dailyUsd: number | null, by: string): Promise<BudgetResponse> {
    const day = dayOf();
    const micros = dailyUsd === null ? undefined : toMicros(dailyUsd);
    const spendScope = dayScope(scope, userId, day);
    // This instance forgets what it read of the scope without a limit, and keeps no read begun before the limit
    // was stored (one in flight could predate it): the new limit applies to its next message.
    const set = await this.spend.setLimit(spendScope, micros, by);
    const key = JSON.stringify(spendKey(spendScope));
    this.admitted.delete(key);
    this.limitSetAt.set(key, Date.now());
    if (this.limitSetAt.size > 10_000) this.limitSetAt.delete(this.limitSetAt.keys().next().value!);
    // What the day spent while it had no limit counts against the new one from its next message on; the cells are read once, for both.
    const uncounted = await this.uncounted(spendScope);
    return this.dayView(spendScope, await this.caughtUp(spendScope, set, true, uncounted), uncounted);
  }

  /** A session's total spend and tokens, and its budget. */
  async sessionSpend(sessionId: string): Promise<SessionSpend> {
    const counter = await this.spend.read({ scope: 'session', sessionId });
    const limit = this.limitOf('session', counter);
    return {
      cost_usd: toUsd(counter.cost_micros ?? 0),
      input_tokens: counter.input_tokens ?? 0,
      output_tokens: counter.output_tokens ?? 0,
      cache_read_input_tokens: counter.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: counter.cache_creation_input_tokens ?? 0,
      max_cost_usd: limit === undefined ? null : toUsd(limit),
    };
  }

  /** A user's or the deployment's budget today, as the API shows it. */
  async today(scope: 'user' | 'deployment', userId?: string): Promise<BudgetResponse> {
    const spendScope = dayScope(scope, userId, dayOf());
    const [counter, uncounted] = await Promise.all([this.spend.read(spendScope), this.uncounted(spendScope)]);
    return this.dayView(spendScope, counter, uncounted);
  }

  /**
   * A day's budget as the API shows it: spent is what its counter has (runs that found a limit on it, and
   * what it caught up) and what its usage cells spent uncounted since it last caught up.
   */
  private dayView(scope: Exclude<SpendScope, { scope: 'session' }>, counter: SpendCounter, uncounted: number): BudgetResponse {
    const spent = (counter.cost_micros ?? 0) + Math.max(0, uncounted - (counter.from_usage_micros ?? 0));
    return this.view(scope.scope, { ...counter, cost_micros: spent });
  }

  /** A budget as the API shows it (a user's or the deployment's: today's). */
  view(scope: BudgetScope, counter: SpendCounter): BudgetResponse {
    const day = scope === 'session' ? undefined : dayOf();
    const limit = this.limitOf(scope, counter);
    return {
      budget: scope,
      ...(day ? { day } : {}),
      spent_usd: toUsd(counter.cost_micros ?? 0),
      held_usd: toUsd(counter.held_micros ?? 0),
      limit_usd: limit === undefined ? null : toUsd(limit),
      ...(counter.limit_set_by ? { limit_set_by: counter.limit_set_by } : {}),
      ...(counter.limit_set_at ? { limit_set_at: counter.limit_set_at } : {}),
    };
  }

  /**
   * The runs active now, with what each has cost here so far and its model calls: what its session's
   * counter gained since the run started (items written before carry their own `ADD`ed figures).
   */
  async activeRuns(): Promise<(ActiveRunItem & { cost_micros: number; calls: number })[]> {
    const runs = await this.operations.activeRuns();
    return Promise.all(
      runs.map(async (run) => {
        if (run.session_cost_before_micros === undefined) return { ...run, cost_micros: run.cost_micros ?? 0, calls: run.calls ?? 0 };
        const now = await this.spend.read({ scope: 'session', sessionId: run.session_id });
        return { ...run, cost_micros: Math.max(0, (now.cost_micros ?? 0) - run.session_cost_before_micros), calls: Math.max(0, (now.calls ?? 0) - (run.session_calls_before ?? 0)) };
      }),
    );
  }

  /**
   * A run's budget: its session, its user's day and the deployment's day. The run is listed as active
   * (with what it spends) until `ended`.
   */
  forRun(run: RunScope): ActiveRunBudget {
    return new ScopedRunBudget(this, run);
  }
}

/** The spend scope of a user's or the deployment's day. */
function dayScope(scope: 'user' | 'deployment', userId: string | undefined, day: string): Exclude<SpendScope, { scope: 'session' }> {
  return scope === 'user' ? { scope, userId: userId!, day } : { scope, day };
}

/** Budgets over the table's spend counters. */
export function createBudgets(db: DynamoDBDocumentClient, table: string, limits: BudgetLimits): Budgets {
  return new Budgets(new SpendStore(db, table), limits, new OperationsStore(db, table), new UsageStore(db, table));
}

/** The run a budget is kept for. */
interface RunScope {
  sessionId: string;
  runId: string;
  userId: string;
  agentId: string;
  instance: string;
  /** Epoch ms after which the run is taken to have died with its process (its holds expire then too). */
  expiresAt: number;
  /** The run's tool calls by tool so far (its delegates' included), kept by the caller: each step's usage carries the new ones. */
  toolCalls?: ReadonlyMap<string, number>;
}

/** A call's reservation: the same hold on each scope that had a limit when it was made. */
interface ScopedHold extends BudgetHold {
  hold: SpendHold;
  scopes: BudgetScope[];
}

/** Budgets off: how often, at most, a run's spend is added to its session's counter while it goes on (`BudgetLimits.sessionSpendEveryMs`). */
const SESSION_SPEND_EVERY_MS = 1_000;

/** How long a call waiting for holds of another process waits before reading again (doubling up to the most). */
const HOLD_POLL_MS = { first: 50, most: 2_000 };

/**
 * One run's view of its budgets. The first check reads the three counters
 * (and lets go of holds a dead process of this run left, or that expired);
 * after that every step's `ADD`s answer the totals, so a check costs no
 * request. Spending is not awaited by the step: the next check waits for it.
 * The session's counter is read as the run starts, whether it has a limit or
 * not: the active run item keeps it, so that what the run costs is never
 * written per step. Before each model call, `reserve` holds the call's most on each scope with a
 * limit (one conditional update each), and the call's `ADD` settles it.
 *
 * A day (the user's, the deployment's) with no limit is never written by a run: the usage cell, written
 * anyway, keeps the spend as uncounted there, and a limit that comes to apply later catches the day's
 * counter up from the cells (`Budgets.caughtUp`); what the API shows as a day's spend adds the two.
 *
 * When none of the run's scopes has a limit (budgets off: nothing to check), a step writes nothing:
 * the session's counter (what the runs list shows a run has cost) gains the run's first call at once,
 * then what the run spent at most once a second and within a second (`SESSION_SPEND_EVERY_MS`), and no check waits for it;
 * it and the usage cell get what is left once, as the run ends. The
 * price: a process that dies mid-run leaves its run's spend out of the days and the usage report, and
 * its last second out of the session's counter (the log's records still have each step), and a limit
 * set while such a run goes on applies from its next run.
 */
class ScopedRunBudget implements ActiveRunBudget {
  private readonly known = new Map<BudgetScope, ScopeSpend>();
  /** Each scope's counter as last read or written. */
  private readonly counters = new Map<BudgetScope, SpendCounter>();
  private readonly pending = new Set<Promise<unknown>>();
  private first?: Promise<unknown>;
  /** The session's counter as the run starts here: the active run item keeps it (what the run costs is what it gains). */
  private readonly sessionRead: Promise<{ counter: SpendCounter; holds: SpendHold[] }>;
  private readonly listed: Promise<unknown>;
  /** Hold ids: `<run id>#<this process's tag>.<n>`, so a resumed run knows the holds its dead process left. */
  private readonly tag = randomUUID().slice(0, 8);
  private holds = 0;
  /** The tool calls already added to the usage counters, by tool. */
  private readonly countedCalls = new Map<string, number>();
  /** Budgets off: the spend of the run's model calls not yet added to the usage cell (written as it ends). */
  private deferred?: { usage: Usage; calls: number };
  /** Budgets off: the spend not yet added to the session's counter, and when it was last added to (epoch ms; 0: never). */
  private sessionDeferred?: { usage: Usage; calls: number };
  private sessionAddedAt = 0;
  /** Budgets off: adds what the session's counter has not gained yet once a second has passed, should no call come to do it. */
  private sessionTimer?: ReturnType<typeof setTimeout>;
  /** The days whose spend this run left to its usage cell (they had no limit as it read them). */
  private readonly uncountedDays = new Set<'user' | 'deployment'>();
  private readonly startedAt = Date.now();

  constructor(
    private readonly budgets: Budgets,
    private readonly run: RunScope,
  ) {
    const { runId, sessionId, userId, agentId, instance, expiresAt } = run;
    const started = { run_id: runId, session_id: sessionId, user_id: userId, agent_id: agentId, instance, started_at: new Date().toISOString(), expires_at: Math.ceil(expiresAt / 1000) };
    this.sessionRead = budgets.spend.inspect({ scope: 'session', sessionId });
    this.sessionRead.catch(() => undefined);
    // Listed before its first model call (the first check waits for it); a run that cannot be listed still runs.
    this.listed = this.sessionRead
      .then(({ counter }) => budgets.operations.runStarted({ ...started, session_cost_before_micros: counter.cost_micros ?? 0, session_calls_before: counter.calls ?? 0 }))
      .catch(() => undefined);
  }

  private scopes(): [BudgetScope, SpendScope][] {
    const day = dayOf();
    return [
      ['session', { scope: 'session', sessionId: this.run.sessionId }],
      ['user', { scope: 'user', userId: this.run.userId, day }],
      ['deployment', { scope: 'deployment', day }],
    ];
  }

  private note(name: BudgetScope, counter: SpendCounter): void {
    this.counters.set(name, counter);
    this.known.set(name, this.budgets.spendOf(name, counter));
  }

  /** Reads a scope's counter, letting go of the holds no call will settle: expired ones, and those `orphaned` picks. */
  private async readScope(name: BudgetScope, scope: SpendScope, orphaned: (hold: SpendHold) => boolean, read = this.budgets.spend.inspect(scope)): Promise<void> {
    const { counter, holds } = await read;
    const now = Date.now();
    const stale = holds.filter((hold) => hold.until <= now || orphaned(hold));
    if (stale.length === 0) return this.note(name, await this.budgets.caughtUp(scope, counter));
    await Promise.all(stale.map((hold) => this.budgets.spend.release(scope, hold)));
    this.note(name, await this.budgets.caughtUp(scope, (await this.budgets.spend.inspect(scope)).counter));
  }

  async ended(end?: { finished: boolean; toolCalls: ReadonlyMap<string, number> }): Promise<void> {
    this.addToSession();
    const deferred = this.deferred;
    this.deferred = undefined;
    // The run's unwritten usage (the days had no limit: uncounted there), its last tool calls and, when it finished, the run itself: one ADD, and none when there is nothing.
    const toolCalls = this.uncountedCalls(end?.toolCalls ?? this.run.toolCalls);
    if (deferred) for (const day of ['user', 'deployment'] as const) this.uncountedDays.add(day);
    if (end || deferred) this.countUsage({ ...(deferred ? { usage: deferred.usage, uncounted: { user: true, deployment: true } } : {}), runs: end?.finished ? 1 : 0, toolCalls });
    await Promise.all([this.listed, ...this.pending]);
    await this.catchUpDays();
    await this.budgets.operations.runEnded(this.run.runId).catch(() => undefined);
  }

  /**
   * A run that outlived the time a day read with no limit stands for, and left spend to its usage cell: a day
   * that has a limit now (an administrator set it during the run) takes that spend in, once its cell has it.
   * A shorter run does not read again, so a limit set in its last moments misses its spend (`Budgets.caughtUp`).
   */
  private async catchUpDays(): Promise<void> {
    if (this.uncountedDays.size === 0 || Date.now() - this.startedAt < ADMITTED_READ_MS) return;
    await Promise.all(
      this.scopes().map(async ([name, scope]) => {
        if (name === 'session' || !this.uncountedDays.has(name)) return;
        await this.budgets.caughtUp(scope, await this.budgets.spend.read(scope), true);
      }),
    ).catch(() => undefined);
  }

  /** The tool calls of `calls` not yet added to the usage counters (and from now on taken as added). */
  private uncountedCalls(calls: ReadonlyMap<string, number> | undefined): Map<string, number> {
    const fresh = new Map<string, number>();
    for (const [name, count] of calls ?? []) {
      const counted = this.countedCalls.get(name) ?? 0;
      if (count > counted) fresh.set(name, count - counted);
      this.countedCalls.set(name, count);
    }
    return fresh;
  }

  /** Adds to the run's usage cell for today; a counter that cannot be written loses only the report. */
  private countUsage(added: UsageAdded): void {
    const { sessionId, userId, agentId } = this.run;
    this.track(this.budgets.usage.add({ day: dayOf(), userId, agentId, sessionId }, added).catch(() => undefined));
  }

  async check(): Promise<BudgetStop | undefined> {
    // Holds of this run that no process of it holds now (this process has made none yet): its dead process's.
    const orphaned = (hold: SpendHold) => hold.id.startsWith(`${this.run.runId}#`);
    this.first ??= Promise.all([
      this.listed,
      ...this.scopes().map(([name, scope]) => {
        // The user's and deployment's day as the message was admitted, if they had no limit then: no read again.
        const admitted = name === 'session' ? undefined : this.budgets.admittedRead(scope);
        if (admitted) return this.note(name, admitted);
        return this.readScope(name, scope, orphaned, name === 'session' ? this.sessionRead : undefined);
      }),
    ]);
    await this.first;
    // With no limit, what the writes in flight answer cannot stop the run: it does not wait for them.
    if (!this.unlimited()) await Promise.all(this.pending);
    return this.spentScope();
  }

  private spentScope(): BudgetStop | undefined {
    for (const [scope, spend] of this.known) {
      if (spend.limitMicros !== undefined && spend.spentMicros >= spend.limitMicros) return { budget: scope, reason: budgetReason(scope, spend) };
    }
    return undefined;
  }

  async reserve(maxCostUsd: number, signal?: AbortSignal): Promise<{ stop: BudgetStop } | { hold?: BudgetHold }> {
    const spent = await this.check();
    if (spent) return { stop: spent };
    const hold: SpendHold = { id: `${this.run.runId}#${this.tag}.${++this.holds}`, micros: Math.max(1, toMicros(maxCostUsd)), until: this.run.expiresAt };
    const { spend } = this.budgets;
    for (let waitMs = HOLD_POLL_MS.first; ; waitMs = Math.min(waitMs * 2, HOLD_POLL_MS.most)) {
      const limited = this.scopes().filter(([name]) => this.known.get(name)?.limitMicros !== undefined);
      if (limited.length === 0) return {};
      const answers = await Promise.all(
        limited.map(async ([name, scope]) => {
          const counter = await spend.reserve(scope, hold, this.known.get(name)!.limitMicros!, this.counters.get(name) ?? {});
          if (counter) this.note(name, counter);
          return counter !== undefined;
        }),
      );
      if (answers.every(Boolean)) {
        const made: ScopedHold = { id: hold.id, hold, scopes: limited.map(([name]) => name) };
        return { hold: made };
      }
      // Refused on a scope: what it holds elsewhere is let go at once, so that two calls never wait on each other.
      const refused = limited.filter((_, i) => !answers[i]);
      const watch = spend.watch(refused[0]![1], waitMs);
      await Promise.all(limited.filter((_, i) => answers[i]).map(([, scope]) => spend.release(scope, hold)));
      // Spent, or held by calls in flight (an expired hold is let go as it is read): read again to tell which.
      await Promise.all(refused.map(([name, scope]) => this.readScope(name, scope, () => false)));
      const stop = this.spentScope();
      const free = refused.some(([name]) => committedOf(this.counters.get(name)!) < this.known.get(name)!.limitMicros!);
      if (stop || free || signal?.aborted) watch.stop();
      if (stop) return { stop };
      if (signal?.aborted) return {};
      // Held by calls in flight: wait for one of them to settle (this process's wake the watch at once), then try again.
      const onAbort = () => watch.stop();
      signal?.addEventListener('abort', onAbort, { once: true });
      await Promise.race([watch.changed, ...this.pending]);
      signal?.removeEventListener('abort', onAbort);
      watch.stop();
    }
  }

  spend(usage: Usage, hold?: BudgetHold): void {
    const held = hold as ScopedHold | undefined;
    const none = usage.cost_usd === 0 && usage.input_tokens === 0 && usage.output_tokens === 0;
    if (none && !held) return;
    if (!held && this.unlimited()) {
      // The session's counter gains the run's calls at most once a second (the runs list's cost and calls are what it gains); the rest waits for the end.
      this.sessionDeferred = added(this.sessionDeferred, usage);
      const everyMs = this.budgets.limits.sessionSpendEveryMs ?? SESSION_SPEND_EVERY_MS;
      const waited = Date.now() - this.sessionAddedAt;
      if (waited >= everyMs) this.addToSession();
      // A long tool call or a wait for a person after this call: what it spent is added within the interval all the same.
      else this.sessionTimer ??= setTimeout(() => this.addToSession(), everyMs - waited).unref();
      this.deferred = added(this.deferred, usage);
      return;
    }
    const { spend } = this.budgets;
    const uncounted = { user: false, deployment: false };
    for (const [name, scope] of this.scopes()) {
      const settles = held?.scopes.includes(name);
      // A day with no limit is not written: its usage cell keeps the spend, which a limit set later catches up from.
      if (name !== 'session' && !settles && this.known.get(name)?.limitMicros === undefined) {
        uncounted[name] = true;
        this.uncountedDays.add(name);
        continue;
      }
      if (none) {
        if (settles) this.track(spend.release(scope, held!.hold).catch(() => undefined));
        continue;
      }
      // A counter that cannot be written is not a reason to lose the step: the next check reads what is known.
      const added = (settles ? spend.settle(scope, held!.hold, usage) : spend.add(scope, usage)).then(
        (counter) => this.note(name, counter),
        () => undefined,
      );
      this.track(added);
    }
    if (none) return;
    // Usage is counted where spend is, step by step: a process that dies loses none of the steps it counted.
    this.countUsage({ usage, toolCalls: this.uncountedCalls(this.run.toolCalls), uncounted });
  }

  /** Adds what the session's counter has not gained of the run yet (budgets off), and none when there is nothing. */
  private addToSession(): void {
    clearTimeout(this.sessionTimer);
    this.sessionTimer = undefined;
    const pending = this.sessionDeferred;
    this.sessionDeferred = undefined;
    if (!pending) return;
    this.sessionAddedAt = Date.now();
    this.track(this.budgets.spend.add({ scope: 'session', sessionId: this.run.sessionId }, pending.usage, pending.calls).catch(() => undefined));
  }

  /** Budgets off for this run: every scope read, none with a limit. */
  private unlimited(): boolean {
    return this.known.size === this.scopes().length && [...this.known.values()].every((spend) => spend.limitMicros === undefined);
  }

  private track(write: Promise<unknown>): void {
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }
}

/** `sum` (a new one when undefined) with one more model call's usage added. */
function added(sum: { usage: Usage; calls: number } | undefined, usage: Usage): { usage: Usage; calls: number } {
  const next = sum ?? { usage: zeroUsage(), calls: 0 };
  addUsage(next.usage, usage);
  next.calls++;
  return next;
}
