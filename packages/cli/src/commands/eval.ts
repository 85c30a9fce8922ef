import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { evalVariantSchema, type EvalVariant } from '@zero/agent/wire/evals';
import { connect } from '../connect';
import { CliError, EXIT } from '../exit';

/** The exit code of `zero eval run` when a variant is worse than the baseline beyond the threshold. */
export const EXIT_REGRESSION = 9;

/** `zero eval push <name> <file>`: stores a new version of the dataset from a YAML, JSON or JSONL file. */
export async function pushDataset(profile: string | undefined, name: string, file: string): Promise<number> {
  const ext = extname(file).toLowerCase();
  const format = ext === '.jsonl' ? 'jsonl' : ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
  if (!format) throw new CliError(`${file}: name a .yaml, .yml, .json or .jsonl file`, EXIT.usage);
  const text = await readFile(file, 'utf8').catch(() => {
    throw new CliError(`cannot read ${file}`, EXIT.usage);
  });
  const { client } = await connect(profile);
  const { dataset } = await client.createDataset({ name, file: { format, text } });
  process.stdout.write(`${dataset.name} v${dataset.version}: ${dataset.cases.length} cases\n`);
  return 0;
}

/**
 * A `--variant` as written: `name` alone (the agent as deployed), or `name:key=value,key=value` with
 * keys agent, model, complexity, thinking, max_iterations, prefix (a prompt put before the first message),
 * system (a system prompt standing in for the agent's) and append_system (text added to the system prompt).
 */
export function parseVariant(spec: string): EvalVariant {
  const [name, rest] = spec.includes(':') ? [spec.slice(0, spec.indexOf(':')), spec.slice(spec.indexOf(':') + 1)] : [spec, ''];
  const fields: Record<string, unknown> = { name };
  for (const pair of rest ? rest.split(',') : []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new CliError(`--variant ${spec}: "${pair}" is not key=value`, EXIT.usage);
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const map: Record<string, [string, (v: string) => unknown]> = {
      agent: ['agent_id', String],
      model: ['model', String],
      complexity: ['complexity', String],
      thinking: ['thinking_budget', Number],
      max_iterations: ['max_tool_iterations', Number],
      prefix: ['prompt_prefix', String],
      system: ['system_prompt', String],
      append_system: ['append_system_prompt', String],
    };
    const known = map[key];
    if (!known) throw new CliError(`--variant ${spec}: unknown key "${key}" (agent, model, complexity, thinking, max_iterations, prefix, system, append_system)`, EXIT.usage);
    fields[known[0]] = known[1](value);
  }
  const parsed = evalVariantSchema.safeParse(fields);
  if (!parsed.success) throw new CliError(`--variant ${spec}: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}`, EXIT.usage);
  return parsed.data;
}

export interface EvalRunOptions {
  variant: string[];
  baseline?: string;
  version?: string;
  threshold: string;
  concurrency?: string;
  maxCost?: string;
  format: 'markdown' | 'json';
  out?: string;
  pollMs?: string;
  githubCheck?: string;
}

/** `--github-check owner/repo@sha`: where the server puts the report as a check run. */
export function parseGitHubCheck(spec: string, threshold: number): { repo: string; sha: string; threshold: number } {
  const m = /^([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)@([0-9a-f]{40})$/.exec(spec);
  if (!m) throw new CliError(`--github-check ${spec}: write owner/repo@<the commit's full sha>`, EXIT.usage);
  return { repo: m[1]!, sha: m[2]!, threshold };
}

/**
 * `zero eval run <dataset> --variant … [--baseline name]`: runs the dataset against the variants, shows
 * progress on stderr, prints the report (Markdown or JSON) and exits 9 when a variant is worse than the
 * baseline beyond `--threshold` (0 if none is, 1 when the run could not finish).
 */
export async function runEval(profile: string | undefined, dataset: string, options: EvalRunOptions): Promise<number> {
  const variants = options.variant.map(parseVariant);
  const baseline = options.baseline ?? (variants.length > 1 ? variants[0]!.name : undefined);
  const threshold = Number(options.threshold);
  if (!(threshold >= 0 && threshold <= 1)) throw new CliError('--threshold must be a number from 0 to 1', EXIT.usage);
  const githubCheck = options.githubCheck ? parseGitHubCheck(options.githubCheck, threshold) : undefined;
  const { client } = await connect(profile);
  const created = await client.createEvalRun({
    dataset,
    variants,
    ...(baseline ? { baseline } : {}),
    ...(options.version ? { version: Number(options.version) } : {}),
    ...(options.concurrency ? { concurrency: Number(options.concurrency) } : {}),
    ...(options.maxCost ? { max_cost_usd_per_case: Number(options.maxCost) } : {}),
    ...(githubCheck ? { github_check: githubCheck } : {}),
  });
  const id = created.run.id;
  process.stderr.write(`eval run ${id}: ${created.total} cases (${variants.map((v) => v.name).join(', ')})\n`);
  const tty = process.stderr.isTTY;
  let state = created;
  // Each read of the run also carries it on should its driver have died (see the API's docs).
  while (state.run.status === 'running') {
    await new Promise((r) => setTimeout(r, Number(options.pollMs ?? 1000)));
    state = await client.getEvalRun(id);
    const width = 30;
    const filled = state.total ? Math.round((state.done / state.total) * width) : 0;
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${state.done}/${state.total}`;
    process.stderr.write(tty ? `\r\x1b[2K${bar}` : `${bar}\n`);
  }
  if (tty) process.stderr.write('\n');
  const report = await client.evalResults(id, threshold);
  const text = options.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : await client.evalResultsMarkdown(id, threshold);
  if (options.out) await writeFile(options.out, text);
  else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const posted = state.run.github_check?.report;
  if (posted) process.stderr.write(posted.status === 'delivered' ? `GitHub check run ${posted.check_run_id}: ${posted.conclusion}\n` : `zero: the GitHub check run could not be posted: ${posted.last_error ?? posted.last_status}\n`);
  if (state.run.status !== 'completed') return EXIT.error;
  for (const r of report.regressions) process.stderr.write(`zero: ${r.variant} is worse than ${r.baseline}: score ${r.score_delta.toFixed(3)}, pass rate ${(r.pass_rate_delta * 100).toFixed(1)} points\n`);
  return report.regressions.length ? EXIT_REGRESSION : EXIT.ok;
}
