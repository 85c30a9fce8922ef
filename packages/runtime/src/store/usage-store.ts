import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Usage, UsageTotals } from '@zero/agent/wire';
import { keys } from './keys';
import type { Item } from './table';
import { Table } from './table';
import { toMicros, toUsd } from './spend-store';

/** Where usage is counted: a day, and the user, agent and session of a run. */
export interface UsageCell {
  day: string;
  userId: string;
  agentId: string;
  sessionId: string;
}

/** What is added to a cell at once: a step's usage (with the tool calls it made), or a run's end. */
export interface UsageAdded {
  usage?: Usage;
  /** 1 when a run finished (not handed over or waiting for a decision). */
  runs?: number;
  toolCalls?: ReadonlyMap<string, number>;
  /**
   * The day counters the usage's cost was not added to (their scope had no limit): the cell keeps it as
   * `uncounted_<scope>_micros` as well, which a limit set later is caught up from (`Budgets`).
   */
  uncounted?: { user: boolean; deployment: boolean };
}

/** The day counters whose uncounted spend a cell keeps. */
export type DayOwner = { userId: string } | 'deployment';

/** A usage item's sort key within its day: everyone's (`ALL`, `USER#`, `AGENT#`, `SESSION#`) or one user's (`U#<id>#…`). */
export type UsageGroup = 'user' | 'agent' | 'session' | 'day';

const TOOL = 'tool:';
/** A cell's cost that was not added to its user's or the deployment's day counter. */
const UNCOUNTED = { user: 'uncounted_user_micros', deployment: 'uncounted_deployment_micros' } as const;
/** The sort-key prefix of the cells of a day (`C#<user>#<session>#<agent>`). */
const CELL = 'C#';

/** The sort-key prefix of a grouping within a day in the layout before cells; `userId`: only that user's items. */
function formerPrefix(group: UsageGroup, userId: string | undefined): string {
  if (userId) return group === 'agent' ? `U#${userId}#AGENT#` : group === 'session' ? `U#${userId}#SESSION#` : `USER#${userId}`;
  return group === 'agent' ? 'AGENT#' : group === 'session' ? 'SESSION#' : group === 'user' ? 'USER#' : 'ALL';
}

/**
 * Usage counters per UTC day (`USAGE#<day>`): one cell per (user, session, agent), added to by every step
 * as its spend is counted (one atomic `ADD`: the step's tokens, cost and tool calls), and by a run's end
 * (`runs`). A killed process loses none of the steps it counted. `GET /usage` reads a day's cells (one
 * query; a user's own: their cells only) and sums them by the grouping asked for. Days written before
 * cells keep their items of each grouping (`ALL`, `USER#…`, …, written as runs ended) and are read as well.
 */
export class UsageStore {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  async add(cell: UsageCell, added: UsageAdded): Promise<void> {
    const usage = added.usage;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':user': cell.userId, ':agent': cell.agentId, ':session': cell.sessionId };
    const adds: string[] = [];
    const add = (attribute: string, value: number) => {
      if (value === 0) return;
      const i = adds.length;
      names[`#a${i}`] = attribute;
      values[`:a${i}`] = value;
      adds.push(`#a${i} :a${i}`);
    };
    add('runs', added.runs ?? 0);
    if (usage) {
      add('cost_micros', toMicros(usage.cost_usd));
      add('input_tokens', usage.input_tokens);
      add('output_tokens', usage.output_tokens);
      add('cache_read_input_tokens', usage.cache_read_input_tokens);
      add('cache_creation_input_tokens', usage.cache_creation_input_tokens);
      if (added.uncounted?.user) add(UNCOUNTED.user, toMicros(usage.cost_usd));
      if (added.uncounted?.deployment) add(UNCOUNTED.deployment, toMicros(usage.cost_usd));
    }
    for (const [name, count] of added.toolCalls ?? []) add(`${TOOL}${name}`, count);
    if (adds.length === 0) return;
    await this.items.update(keys.usage(cell.day, `${CELL}${cell.userId}#${cell.sessionId}#${cell.agentId}`), {
      set: `SET user_id = :user, agent_id = :agent, session_id = :session ADD ${adds.join(', ')}`,
      names,
      values,
    });
  }

  /**
   * What a day's cells spent that was not added to a day counter: the user's (their cells: one query) or
   * the deployment's (every cell of the day), in micro-dollars.
   */
  async uncounted(day: string, owner: DayOwner): Promise<number> {
    const pk = keys.usageDay(day);
    const attribute = owner === 'deployment' ? UNCOUNTED.deployment : UNCOUNTED.user;
    const cells = owner === 'deployment' ? await this.items.query({ pk, prefix: CELL, projection: attribute, consistent: true }) : await this.cellsOf(pk, owner.userId, `user_id, ${attribute}`);
    return cells.reduce((micros, cell) => micros + Number(cell[attribute] ?? 0), 0);
  }

  /** One user's cells of a day (`projection`: only those attributes, `user_id` among them). */
  private async cellsOf(pk: string, userId: string, projection?: string): Promise<Item[]> {
    const cells = await this.items.query({ pk, prefix: `${CELL}${userId}#`, ...(projection ? { projection } : {}), consistent: true });
    // `C#alice#` also begins `C#alice#x`'s cells: the user id is checked on the item.
    return cells.filter((cell) => cell.user_id === userId);
  }

  /** One day's totals of a grouping, each with its key (a user, agent or session id, or the day); `userId`: only theirs. */
  async day(day: string, group: UsageGroup, userId: string | undefined): Promise<{ key: string; totals: UsageTotals }[]> {
    const pk = keys.usageDay(day);
    // Everyone's: the whole day at once (cells and any items of the former layout); one user's: theirs of each.
    const [cells, former] = userId
      ? await Promise.all([this.cellsOf(pk, userId), this.items.query({ pk, prefix: formerPrefix(group, userId), consistent: true })])
      : await this.items.query({ pk, consistent: true }).then((items) => [items.filter((item) => String(item.sk).startsWith(CELL)), items] as const);
    const out = new Map<string, UsageTotals>();
    const count = (key: string, item: Item) => out.set(key, addTotals(out.get(key) ?? noUsage(), totalsOf(item)));
    for (const item of cells) {
      count(group === 'day' ? day : String(group === 'user' ? item.user_id : group === 'agent' ? item.agent_id : item.session_id), item);
    }
    const prefix = formerPrefix(group, userId);
    // `USER#alice` must not match `USER#alice2`: an exact item where the grouping names one.
    const exact = !prefix.endsWith('#');
    for (const item of former) {
      const sk = String(item.sk);
      if (exact ? sk !== prefix : !sk.startsWith(prefix)) continue;
      count(exact ? (group === 'user' ? userId! : day) : sk.slice(prefix.length), item);
    }
    return [...out].map(([key, totals]) => ({ key, totals }));
  }
}

function totalsOf(item: Item): UsageTotals {
  const n = (name: string) => Number(item[name] ?? 0);
  const toolCalls: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) if (name.startsWith(TOOL)) toolCalls[name.slice(TOOL.length)] = Number(value);
  return {
    runs: n('runs'),
    cost_usd: toUsd(n('cost_micros')),
    input_tokens: n('input_tokens'),
    output_tokens: n('output_tokens'),
    cache_read_input_tokens: n('cache_read_input_tokens'),
    cache_creation_input_tokens: n('cache_creation_input_tokens'),
    tool_calls: toolCalls,
  };
}

/** Sums totals (cost in micro-dollars, so that no float error builds up). */
export function addTotals(into: UsageTotals, more: UsageTotals): UsageTotals {
  const tools = { ...into.tool_calls };
  for (const [name, count] of Object.entries(more.tool_calls)) tools[name] = (tools[name] ?? 0) + count;
  return {
    runs: into.runs + more.runs,
    cost_usd: toUsd(toMicros(into.cost_usd) + toMicros(more.cost_usd)),
    input_tokens: into.input_tokens + more.input_tokens,
    output_tokens: into.output_tokens + more.output_tokens,
    cache_read_input_tokens: into.cache_read_input_tokens + more.cache_read_input_tokens,
    cache_creation_input_tokens: into.cache_creation_input_tokens + more.cache_creation_input_tokens,
    tool_calls: tools,
  };
}

export const noUsage = (): UsageTotals => ({ runs: 0, cost_usd: 0, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, tool_calls: {} });
