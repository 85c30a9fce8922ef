import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { schedulerExpressions } from './aws-cron';

/** The times a cron gives in a year (the first 1,500 of them), as croner (which runs schedules locally) computes them. */
function times(pattern: string, options: { domAndDow?: boolean } = {}): string[] {
  const cron = new Cron(pattern, { timezone: 'UTC', paused: true, mode: '5-part', ...options });
  const out: string[] = [];
  let at: Date | null = new Date('2027-01-01T00:00:00Z');
  while ((at = cron.nextRun(at)) && at < new Date('2028-01-01T00:00:00Z') && out.length < 1500) out.push(at.toISOString());
  return out;
}

/** An EventBridge expression read back as 5-field cron: without its year, `?` as `*` (one day field is always `?`). */
const backToCron = (expression: string) => expression.replace(/^cron\((.*) \*\)$/, '$1').replace(/\?/g, '*');

describe('schedulerExpressions: a 5-field cron as EventBridge Scheduler cron expressions', () => {
  it('writes the fields EventBridge reads: six of them, a ? day field, days of the week by name', () => {
    expect(schedulerExpressions('0 9 * * 1-5')).toEqual(['cron(0 9 ? * MON-FRI *)']);
    expect(schedulerExpressions('30 18 * * *')).toEqual(['cron(30 18 * * ? *)']);
    expect(schedulerExpressions('*/15 8-17 1 jan,jul *')).toEqual(['cron(0,15,30,45 8-17 1 1,7 ? *)']);
    expect(schedulerExpressions('@weekly')).toEqual(['cron(0 0 ? * SUN *)']);
    // Day 13 OR a Friday, as cron means it: one expression per day field.
    expect(schedulerExpressions('0 12 13 * 5')).toEqual(['cron(0 12 13 * ? *)', 'cron(0 12 ? * FRI *)']);
  });

  const patterns = [
    '0 9 * * 1-5',
    '*/7 */5 * * *',
    '5-59/20 1-20/3 * * *',
    '0 0 1,15 * *',
    '0 12 13 * 5',
    '0 6 * * 0,7',
    '0 6 * * 5-7',
    '15 10 * feb-apr sun',
    '0 0 */10 */2 *',
    '0 22 1-7 * mon',
    '0 3 * * */2',
    '@monthly',
    '@hourly',
  ];
  it.each(patterns)('%s gives, through EventBridge, exactly the times croner gives over a year (up to 1,500 times)', (pattern) => {
    const expected = times(pattern);
    const given = [...new Set(schedulerExpressions(pattern).flatMap((e) => times(backToCron(e))))].sort().slice(0, 1500);
    expect(expected.length).toBeGreaterThan(0);
    expect(given).toEqual(expected);
  });

  it('refuses what EventBridge cannot be given, naming the part', () => {
    const refusal = (pattern: string) => {
      try {
        schedulerExpressions(pattern);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal('0 9 L * *')).toMatch(/"L" is not a day-of-month/);
    expect(refusal('0 9 * * 5#3')).toMatch(/"5#3" in the day-of-week field/);
    expect(refusal('0 25 * * *')).toMatch(/"25" is not a hour/);
    expect(refusal('0 9 * * * *')).toMatch(/needs 5 fields/);
    expect(refusal('0 9 10-2 * *')).toMatch(/runs backwards/);
  });

  it('stays within the 256 characters EventBridge takes, even written out with no range to shorten it', () => {
    const everyThirdLeftOut = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => i + min).filter((v) => (v - min) % 3 !== 2).join(',');
    const longest = `${everyThirdLeftOut(0, 59)} ${everyThirdLeftOut(0, 23)} ${everyThirdLeftOut(1, 31)} ${everyThirdLeftOut(1, 12)} ${everyThirdLeftOut(0, 6)}`;
    const expressions = schedulerExpressions(longest);
    expect(expressions).toHaveLength(2);
    for (const expression of expressions) expect(expression.length).toBeLessThanOrEqual(256);
  });
});
