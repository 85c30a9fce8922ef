import { useEffect, useState } from 'react';
import { evalReportSchema, evalRunListSchema, evalRunResponseSchema, type EvalReportBody, type EvalRun } from '@zero/agent/wire/evals';
import { api, type Credentials } from './api';

/** How often a running run's report is read again (each read of the run also carries it on should its driver have died). */
const POLL_MS = 1000;

type VariantSummary = EvalReportBody['variants'][number];

/**
 * Eval runs: the caller's (everyone's for an administrator), and the one picked: its cases × variants
 * filling in while it runs (the report read again every second until the run ends), and a chart of each
 * variant's mean score against its cost. Loaded as its own chunk, on opening.
 */
export default function EvalsPanel({ creds }: { creds: Credentials }) {
  const [runs, setRuns] = useState<EvalRun[]>();
  const [picked, setPicked] = useState<string>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let current = true;
    api(creds, 'GET', '/evals/runs', undefined, evalRunListSchema).then(
      ({ runs }) => current && (setRuns(runs), setError(undefined)),
      (failure: Error) => current && setError(failure.message),
    );
    return () => {
      current = false;
    };
  }, [creds]);

  return (
    <section className="evals" data-testid="evals-panel">
      <h3>Eval runs</h3>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : !runs ? (
        <p className="loading">Loading…</p>
      ) : runs.length === 0 ? (
        <p className="meta" data-testid="evals-empty">
          No eval runs yet: start one with <code>zero eval run</code> or <code>POST /api/v2/evals/runs</code>.
        </p>
      ) : (
        <ul className="eval-runs" aria-label="Eval runs">
          {runs.map((r) => (
            <li key={r.id}>
              <button type="button" className={r.id === picked ? '' : 'secondary'} aria-pressed={r.id === picked} data-testid="eval-run" data-run-id={r.id} onClick={() => setPicked(r.id)}>
                {r.dataset} v{r.dataset_version} · {r.variants.map((v) => v.name).join(' / ')} · <span data-testid="eval-run-status">{r.status}</span> · {new Date(r.created_at).toLocaleString()}
              </button>
            </li>
          ))}
        </ul>
      )}
      {picked ? <EvalRunView key={picked} creds={creds} runId={picked} onStatus={(run) => setRuns((list) => list?.map((r) => (r.id === run.id ? run : r)))} /> : null}
    </section>
  );
}

/** One run: its report, read again while the run is running. */
function EvalRunView({ creds, runId, onStatus }: { creds: Credentials; runId: string; onStatus(run: EvalRun): void }) {
  const [report, setReport] = useState<EvalReportBody>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        // Reading the run carries it on (a dead driver is replaced); the report is what is shown.
        await api(creds, 'GET', `/evals/runs/${runId}`, undefined, evalRunResponseSchema);
        const next = await api(creds, 'GET', `/evals/runs/${runId}/results`, undefined, evalReportSchema);
        if (!current) return;
        setReport(next);
        setError(undefined);
        onStatus(next.run);
        if (next.run.status === 'running') timer = setTimeout(() => void read(), POLL_MS);
      } catch (failure) {
        if (current) setError((failure as Error).message);
      }
    };
    void read();
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // onStatus is a new function with every render of the list: the run followed is what restarts the reads.
  }, [creds, runId]);

  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!report) return <p className="loading">Loading…</p>;
  const names = report.run.variants.map((v) => v.name);
  return (
    <div className="eval-run" data-testid="eval-run-view">
      <p className="meta" data-testid="eval-progress" aria-live="polite">
        {report.done} of {report.total} case results · {report.run.status}
      </p>
      <div className="table-scroll">
        <table className="figures-table" data-testid="eval-table">
          <caption>Cases × variants: score (pass)</caption>
          <thead>
            <tr>
              <th scope="col">Case</th>
              {names.map((n) => (
                <th scope="col" key={n}>
                  {n}
                  {n === report.run.baseline ? ' (baseline)' : ''}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {report.cases.map((c) => (
              <tr key={c.case_id} data-testid="eval-case" data-case-id={c.case_id}>
                <th scope="row">{c.case_id}</th>
                {names.map((n) => {
                  const r = c.by_variant[n];
                  return (
                    <td key={n} data-testid="eval-cell" data-variant={n} data-state={r ? 'done' : 'pending'} title={r?.answer}>
                      {r ? `${r.score.toFixed(2)} ${r.pass ? '✓' : '✗'}` : '…'}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ScoreCostChart variants={report.variants.filter((v) => v.cases > 0)} />
    </div>
  );
}

/** Chart geometry (SVG user units). */
const W = 480;
const H = 280;
const PAD = { left: 56, right: 24, top: 16, bottom: 44 };
const PLOT_W = W - PAD.left - PAD.right;
const PLOT_H = H - PAD.top - PAD.bottom;

/**
 * Each variant's mean score (0 to 1, up) against its cost (dollars over its cases, right; the axis runs
 * from 0 to the dearest variant's cost): one labelled point per variant with results. Each point is
 * focusable and names its figures, so the chart reads by keyboard and screen reader too.
 */
export function ScoreCostChart({ variants }: { variants: readonly VariantSummary[] }) {
  if (!variants.length) return null;
  const maxCost = Math.max(...variants.map((v) => v.cost_usd));
  const x = (cost: number) => PAD.left + (maxCost > 0 ? cost / maxCost : 0) * PLOT_W;
  const y = (score: number) => PAD.top + (1 - score) * PLOT_H;
  const money = (n: number) => `$${n.toFixed(4)}`;
  return (
    <figure className="eval-chart">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="group" aria-label="Mean score against cost, per variant" data-testid="eval-chart" data-max-cost={maxCost}>
        <line x1={PAD.left} y1={PAD.top + PLOT_H} x2={PAD.left + PLOT_W} y2={PAD.top + PLOT_H} className="axis" data-testid="x-axis" />
        <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={PAD.top + PLOT_H} className="axis" data-testid="y-axis" />
        {[0, 0.5, 1].map((s) => (
          <text key={s} x={PAD.left - 8} y={y(s)} textAnchor="end" dominantBaseline="middle" className="tick">
            {s.toFixed(1)}
          </text>
        ))}
        <text x={PAD.left} y={PAD.top + PLOT_H + 16} textAnchor="middle" className="tick">
          $0
        </text>
        <text x={PAD.left + PLOT_W} y={PAD.top + PLOT_H + 16} textAnchor="end" className="tick">
          {money(maxCost)}
        </text>
        <text x={PAD.left + PLOT_W / 2} y={H - 6} textAnchor="middle" className="axis-label">
          Cost (USD, all cases)
        </text>
        <text x={14} y={PAD.top + PLOT_H / 2} textAnchor="middle" transform={`rotate(-90 14 ${PAD.top + PLOT_H / 2})`} className="axis-label">
          Mean score
        </text>
        {variants.map((v) => {
          const [cx, cy] = [x(v.cost_usd), y(v.mean_score)];
          // A label on the right half goes to the point's left, inside the chart.
          const right = cx > PAD.left + PLOT_W / 2;
          return (
            <g key={v.variant} tabIndex={0} role="img" aria-label={`${v.variant}: mean score ${v.mean_score.toFixed(3)}, cost ${money(v.cost_usd)}`} data-testid="eval-point" data-variant={v.variant} className="point">
              <circle cx={cx} cy={cy} r={6} />
              <text x={right ? cx - 9 : cx + 9} y={cy < PAD.top + 16 ? cy + 18 : cy - 9} textAnchor={right ? 'end' : 'start'} className="point-label">
                {v.variant}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="meta">Mean score (0 to 1) against cost, one point per variant.</figcaption>
    </figure>
  );
}
