import type { Dataset } from '@zero/agent/wire/evals';
import type { CaseResult, EvalRun } from '@zero/agent/wire/evals';

/** One variant's figures over its cases. */
export interface VariantSummary {
  variant: string;
  cases: number;
  /** Mean score (0 to 1) with a 95% confidence interval (normal approximation; the interval is the mean's ± 1.96 standard errors). */
  mean_score: number;
  ci95: [number, number];
  pass_rate: number;
  cost_usd: number;
  grader_cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms_p50: number;
  latency_ms_p90: number;
  mean_steps: number;
}

/** A variant worse than the baseline beyond the threshold. */
export interface Regression {
  variant: string;
  baseline: string;
  /** The variant's mean score minus the baseline's. */
  score_delta: number;
  pass_rate_delta: number;
}

export interface EvalReport {
  run: EvalRun;
  done: number;
  total: number;
  variants: VariantSummary[];
  /** Per case: each variant's answer, score, pass and tool calls side by side. */
  cases: { case_id: string; reference?: string; by_variant: Record<string, Pick<CaseResult, 'answer' | 'score' | 'pass' | 'status' | 'checks' | 'grade' | 'steps'> & { tools: string[] }> }[];
  regressions: Regression[];
}

const percentile = (sorted: readonly number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);
const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Summarises a variant's results. */
export function summariseVariant(variant: string, results: readonly CaseResult[]): VariantSummary {
  const n = results.length;
  const scores = results.map((r) => r.score);
  const mean = n ? scores.reduce((a, b) => a + b, 0) / n : 0;
  const sd = n > 1 ? Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / (n - 1)) : 0;
  const half = n ? (1.96 * sd) / Math.sqrt(n) : 0;
  const latencies = results.map((r) => r.latency_ms).sort((a, b) => a - b);
  return {
    variant,
    cases: n,
    mean_score: round(mean),
    ci95: [round(Math.max(0, mean - half)), round(Math.min(1, mean + half))],
    pass_rate: round(n ? results.filter((r) => r.pass).length / n : 0),
    cost_usd: round(results.reduce((a, r) => a + r.usage.cost_usd, 0), 6),
    grader_cost_usd: round(results.reduce((a, r) => a + (r.grade?.cost_usd ?? 0), 0), 6),
    input_tokens: results.reduce((a, r) => a + r.usage.input_tokens, 0),
    output_tokens: results.reduce((a, r) => a + r.usage.output_tokens, 0),
    latency_ms_p50: percentile(latencies, 50),
    latency_ms_p90: percentile(latencies, 90),
    mean_steps: round(n ? results.reduce((a, r) => a + r.steps, 0) / n : 0, 2),
  };
}

/**
 * The run's report: per variant and per case, and the variants worse than the baseline: a mean score
 * lower by more than `threshold` (0 to 1), or a pass rate lower by more than it.
 */
export function evalReport(run: EvalRun, dataset: Pick<Dataset, 'cases'>, results: readonly CaseResult[], threshold = 0.05): EvalReport {
  const variants = run.variants.map((v) => summariseVariant(v.name, results.filter((r) => r.variant === v.name)));
  const baseline = run.baseline ? variants.find((v) => v.variant === run.baseline) : undefined;
  const regressions = baseline
    ? variants
        .filter((v) => v.variant !== baseline.variant)
        .map((v) => ({ variant: v.variant, baseline: baseline.variant, score_delta: round(v.mean_score - baseline.mean_score), pass_rate_delta: round(v.pass_rate - baseline.pass_rate) }))
        .filter((d) => d.score_delta < -threshold || d.pass_rate_delta < -threshold)
    : [];
  const cases = dataset.cases.map((c) => ({
    case_id: c.id,
    ...(c.reference ? { reference: c.reference } : {}),
    by_variant: Object.fromEntries(
      results
        .filter((r) => r.case_id === c.id)
        .map((r) => [r.variant, { answer: r.answer, score: r.score, pass: r.pass, status: r.status, checks: r.checks, steps: r.steps, ...(r.grade ? { grade: r.grade } : {}), tools: r.tool_calls.map((t) => t.name) }]),
    ),
  }));
  return { run, done: results.length, total: run.variants.length * dataset.cases.length, variants, cases, regressions };
}

/** The report as Markdown: the variants' table, the regressions, and each case's answers side by side with the diff of tool calls. */
export function reportMarkdown(report: EvalReport): string {
  const money = (n: number) => `$${n.toFixed(4)}`;
  const lines = [
    `# Eval run ${report.run.id}: ${report.run.dataset} v${report.run.dataset_version}`,
    '',
    `${report.done} of ${report.total} case results · ${report.run.status}`,
    '',
    '| variant | mean score (95% CI) | pass rate | cost | grader cost | tokens in/out | latency p50/p90 | steps |',
    '|---|---|---|---|---|---|---|---|',
    ...report.variants.map((v) => `| ${v.variant}${v.variant === report.run.baseline ? ' (baseline)' : ''} | ${v.mean_score.toFixed(3)} (${v.ci95[0].toFixed(3)}–${v.ci95[1].toFixed(3)}) | ${(v.pass_rate * 100).toFixed(1)}% | ${money(v.cost_usd)} | ${money(v.grader_cost_usd)} | ${v.input_tokens}/${v.output_tokens} | ${v.latency_ms_p50}/${v.latency_ms_p90} ms | ${v.mean_steps} |`),
    '',
  ];
  if (report.regressions.length) {
    lines.push('## Worse than the baseline', '');
    for (const r of report.regressions) lines.push(`- **${r.variant}**: score ${r.score_delta >= 0 ? '+' : ''}${r.score_delta.toFixed(3)}, pass rate ${r.pass_rate_delta >= 0 ? '+' : ''}${(r.pass_rate_delta * 100).toFixed(1)} points vs ${r.baseline}`);
    lines.push('');
  }
  lines.push('## Cases', '');
  const names = report.run.variants.map((v) => v.name);
  for (const c of report.cases) {
    lines.push(`### ${c.case_id}`, '');
    const one = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 300);
    lines.push(`| variant | score | pass | tool calls | answer |`, '|---|---|---|---|---|');
    const base = c.by_variant[names[0]!]?.tools ?? [];
    for (const name of names) {
      const r = c.by_variant[name];
      if (!r) {
        lines.push(`| ${name} | – | – | – | (not run yet) |`);
        continue;
      }
      const diff = name === names[0] ? r.tools.join(', ') : toolDiff(base, r.tools);
      lines.push(`| ${name} | ${r.score.toFixed(2)} | ${r.pass ? 'yes' : 'no'} | ${diff || 'none'} | ${one(r.answer)} |`);
    }
    if (c.reference) lines.push(`| reference | | | | ${one(c.reference)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

/** Tool calls against the first variant's: `+name` added, `-name` missing, others as they are. */
function toolDiff(base: readonly string[], tools: readonly string[]): string {
  const left = [...base];
  const out: string[] = [];
  for (const t of tools) {
    const i = left.indexOf(t);
    if (i >= 0) {
      left.splice(i, 1);
      out.push(t);
    } else out.push(`+${t}`);
  }
  return [...out, ...left.map((t) => `-${t}`)].join(', ');
}
