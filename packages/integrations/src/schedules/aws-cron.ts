import { invalidField } from '@zero/agent/errors';

/**
 * A schedule's 5-field cron as EventBridge Scheduler expressions.
 *
 * EventBridge's cron has six fields (a year last) and needs `?` in one of
 * day-of-month and day-of-week; it numbers the days of the week 1–7 from
 * Sunday, and it cannot say "this day of the month OR this day of the week",
 * which is what cron means when both are restricted. So each field is written
 * out as a plain list (ranges of three or more as `a-b`, days of the week by
 * name), and a cron that restricts both days becomes two expressions, one per
 * day field: their times together are the cron's times, and a time both give
 * is claimed once (the fire markers). The same conversion decides which crons
 * a schedule may have everywhere, so a schedule accepted locally also deploys.
 */
export function schedulerExpressions(cron: string): string[] {
  const fields = (NICKNAMES[cron.trim().toLowerCase()] ?? cron).trim().split(/\s+/);
  if (fields.length !== 5) throw invalidField('cron', `needs 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`);
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  const m = list(FIELDS.minute, minute);
  const h = list(FIELDS.hour, hour);
  const mo = list(FIELDS.month, month);
  const days = list(FIELDS.dom, dom);
  const weekdays = list(FIELDS.dow, dow);
  const domSet = isWildcard(dom);
  const dowSet = isWildcard(dow);
  const expression = (d: string, w: string) => `cron(${m} ${h} ${d} ${mo} ${w} *)`;
  const expressions =
    domSet && dowSet ? [expression('*', '?')]
    : dowSet ? [expression(days, '?')]
    : domSet ? [expression('?', weekdays)]
    : [expression(days, '?'), expression('?', weekdays)];
  // Written out, an expression stays under EventBridge's 256 characters: runs of three become
  // ranges, and the longest possible (no such run in any field) has 238 (see the tests).
  return expressions;
}

const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface Field {
  name: string;
  min: number;
  max: number;
  /** Names accepted for values (months, days), index = value - min. */
  names?: readonly string[];
  /** How a value is written for EventBridge. */
  write?: (value: number) => string;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const FIELDS = {
  minute: { name: 'minute', min: 0, max: 59 },
  hour: { name: 'hour', min: 0, max: 23 },
  dom: { name: 'day-of-month', min: 1, max: 31 },
  month: { name: 'month', min: 1, max: 12, names: MONTHS },
  // 0 and 7 are both Sunday in cron; EventBridge is given names, which read the same in both.
  dow: { name: 'day-of-week', min: 0, max: 7, names: DAYS, write: (v: number) => DAYS[v % 7]! },
} satisfies Record<string, Field>;

const isWildcard = (text: string) => text === '*' || text === '?';

/** A field as EventBridge reads it: `*`, or its values as a list with runs as ranges. */
function list(field: Field, text: string): string {
  if (isWildcard(text)) return '*';
  const values = new Set<number>();
  for (const part of text.split(',')) for (const value of expand(field, part)) values.add(field.write ? value % 7 : value);
  const sorted = [...values].sort((a, b) => a - b);
  const full = field.write ? 7 : field.max - field.min + 1;
  if (sorted.length === full && field !== FIELDS.dow) return '*';
  const write = field.write ?? String;
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) out.push(`${write(sorted[i]!)}-${write(sorted[j]!)}`);
    else for (let k = i; k <= j; k++) out.push(write(sorted[k]!));
    i = j + 1;
  }
  return out.join(',');
}

/** One list item: `*`, `n`, `a-b`, each with an optional `/step`; names where the field has them. */
function expand(field: Field, part: string): number[] {
  const match = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/i.exec(part);
  if (!match) throw invalidField('cron', `"${part}" in the ${field.name} field is not a number, a name, a range, a list or a step (L, W, # and the like are not supported)`);
  const step = match[2] === undefined ? 1 : Number(match[2]);
  if (!Number.isInteger(step) || step < 1) throw invalidField('cron', `the step in "${part}" (${field.name}) must be at least 1`);
  let from = field.min;
  let to = field.max === 7 ? 6 : field.max;
  if (match[1] !== '*') {
    const [a, b] = match[1]!.split('-');
    from = value(field, a!);
    // `5/15` means from 5 to the end of the range, as in cron.
    to = b !== undefined ? value(field, b) : match[2] !== undefined ? (field.max === 7 ? 6 : field.max) : from;
    if (to < from) throw invalidField('cron', `the range "${part}" (${field.name}) runs backwards`);
  }
  const values: number[] = [];
  for (let v = from; v <= to; v += step) values.push(v);
  return values;
}

function value(field: Field, text: string): number {
  const named = field.names?.indexOf(text.toUpperCase() as never) ?? -1;
  const v = named >= 0 ? named + field.min : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(v) || v < field.min || v > field.max) {
    throw invalidField('cron', `"${text}" is not a ${field.name} (${field.min}–${field.max}${field.names ? ` or ${field.names[0]}–${field.names.at(-1)}` : ''})`);
  }
  return v;
}
