import { useEffect, useState } from 'react';
import { usageResponseSchema, type UsageResponse, type UsageTotals } from '@zero/agent/wire';
import { api, type Credentials } from './api';

type Grouping = 'user' | 'agent' | 'day';
const GROUPINGS: Grouping[] = ['user', 'agent', 'day'];

/** The last 7 UTC days, today included, as `GET /usage` takes them. */
function lastWeek(now = new Date()): { from: string; to: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { from: day(new Date(now.getTime() - 6 * 86_400_000)), to: day(now) };
}

const tokens = (t: UsageTotals) => t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens;
const count = (n: number) => n.toLocaleString('en-US');
const dollars = (n: number) => `$${n.toFixed(4)}`;

/**
 * Tokens, cost and runs of the last 7 days, by user, agent or day. The server decides whose:
 * everyone's for an administrator, one's own for anyone else. Loaded as its own chunk, on opening.
 */
export default function UsagePanel({ creds }: { creds: Credentials }) {
  const [grouping, setGrouping] = useState<Grouping>('user');
  const [usage, setUsage] = useState<UsageResponse>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    const { from, to } = lastWeek();
    let current = true;
    setUsage(undefined);
    api(creds, 'GET', `/usage?group_by=${grouping}&from=${from}&to=${to}`, undefined, usageResponseSchema).then(
      (answer) => current && (setUsage(answer), setError(undefined)),
      (failure: Error) => current && setError(failure.message),
    );
    return () => {
      current = false;
    };
  }, [creds, grouping]);

  return (
    <section className="usage" data-testid="usage-panel">
      <h3>Usage</h3>
      <p className="meta" data-testid="usage-scope">
        {usage ? `${usage.user_id === null ? 'Everyone' : `Your runs (${usage.user_id})`}, ${usage.from} to ${usage.to} (UTC)` : 'Last 7 days'}
      </p>
      <div className="usage-groupings" role="group" aria-label="Group by">
        {GROUPINGS.map((g) => (
          <button key={g} type="button" className={g === grouping ? '' : 'secondary'} aria-pressed={g === grouping} data-testid={`usage-by-${g}`} onClick={() => setGrouping(g)}>
            By {g}
          </button>
        ))}
      </div>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : !usage ? (
        <p className="loading">Loading…</p>
      ) : (
        <div className="table-scroll">
          <table className="figures-table" data-testid="usage-table">
            <thead>
              <tr>
                <th scope="col">{grouping[0]!.toUpperCase() + grouping.slice(1)}</th>
                <th scope="col">Tokens</th>
                <th scope="col">Cost</th>
                <th scope="col">Runs</th>
              </tr>
            </thead>
            <tbody>
              {usage.groups.length === 0 ? (
                <tr>
                  <td colSpan={4} data-testid="usage-empty">
                    No runs in these days.
                  </td>
                </tr>
              ) : (
                usage.groups.map((g) => <Row key={g.key} label={g.key} totals={g} testId="usage-row" />)
              )}
            </tbody>
            <tfoot>
              <Row label="Total" totals={usage.total} testId="usage-total" />
            </tfoot>
          </table>
        </div>
      )}
    </section>
  );
}

function Row({ label, totals, testId }: { label: string; totals: UsageTotals; testId: string }) {
  return (
    <tr data-testid={testId}>
      <th scope="row">{label}</th>
      <td>{count(tokens(totals))}</td>
      <td>{dollars(totals.cost_usd)}</td>
      <td>{count(totals.runs)}</td>
    </tr>
  );
}
