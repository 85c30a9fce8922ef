import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Usage, UsageTotals } from '../wire';
import { keys } from './keys';
import type { Item } from './table';
import { Table } from './table';
import { toMicros, toUsd } from './spend-store';

/** What one run used in this process, told when it ends. */
export interface RunUsage {
  day: string;
  userId: string;
  agentId: string;
  sessionId: string;
  usage: Usage;
  /** 1 when the run finished here (not handed over or waiting for a decision), else 0. */
  runs: number;
  toolCalls: ReadonlyMap<string, number>;
}

/** A usage item's sort key within its day: everyone's (`ALL`, `USER#`, `AGENT#`, `SESSION#`) or one user's (`U#<id>#…`). */
export type UsageGroup = 'user' | 'agent' | 'session' | 'day';

const TOOL = 'tool:';

/** The sort-key prefix of a grouping within a day; `userId`: only that user's items. */
export function usagePrefix(group: UsageGroup, userId: string | undefined): string {
  if (userId) return group === 'agent' ? `U#${userId}#AGENT#` : group === 'session' ? `U#${userId}#SESSION#` : `USER#${userId}`;
  return group === 'agent' ? 'AGENT#' : group === 'session' ? 'SESSION#' : group === 'user' ? 'USER#' : 'ALL';
}

/**
 * Usage counters per UTC day (`USAGE#<day>`), kept as runs end: one atomic
 * `ADD` on each of the run's items (the day's, its user's, agent's, session's,
 * and its user's agent and session), never per step. `GET /usage` reads a
 * day's items of one grouping with one query.
 */
export class UsageStore {
  private readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  async record(run: RunUsage): Promise<void> {
    const sks = ['ALL', `USER#${run.userId}`, `AGENT#${run.agentId}`, `SESSION#${run.sessionId}`, `U#${run.userId}#AGENT#${run.agentId}`, `U#${run.userId}#SESSION#${run.sessionId}`];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':runs': run.runs,
      ':cost': toMicros(run.usage.cost_usd),
      ':in': run.usage.input_tokens,
      ':out': run.usage.output_tokens,
      ':read': run.usage.cache_read_input_tokens,
      ':write': run.usage.cache_creation_input_tokens,
    };
    const tools = [...run.toolCalls].map(([name, count], i) => {
      names[`#t${i}`] = `${TOOL}${name}`;
      values[`:t${i}`] = count;
      return `#t${i} :t${i}`;
    });
    const set = ['ADD runs :runs, cost_micros :cost, input_tokens :in, output_tokens :out, cache_read_input_tokens :read, cache_creation_input_tokens :write', ...tools].join(', ');
    await Promise.all(sks.map((sk) => this.items.update(keys.usage(run.day, sk), { set, names, values })));
  }

  /** One day's items of a grouping, each with its key (a user, agent or session id, or the day). */
  async day(day: string, group: UsageGroup, userId: string | undefined): Promise<{ key: string; totals: UsageTotals }[]> {
    const prefix = usagePrefix(group, userId);
    const items = await this.items.query({ pk: keys.usageDay(day), prefix, consistent: true });
    // `USER#alice` must not match `USER#alice2`: an exact item where the grouping names one.
    const exact = !prefix.endsWith('#');
    const exactKey = group === 'user' ? userId! : day;
    return items.filter((item) => !exact || item.sk === prefix).map((item) => ({ key: exact ? exactKey : String(item.sk).slice(prefix.length), totals: totalsOf(item) }));
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
