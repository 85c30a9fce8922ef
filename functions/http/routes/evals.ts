import { Hono } from 'hono';
import * as z from 'zod';
import { conflict, invalidField, notFound } from '@zero/agent/errors';
import { requireAgent } from '@zero/agent/definitions/catalog';
import { createDatasetRequestSchema, createEvalRunRequestSchema, datasetListSchema, datasetNameSchema, datasetResponseSchema, evalReportSchema, evalRunListSchema, evalRunResponseSchema, type EvalRun } from '@zero/agent/wire/evals';
import { describe, json, param, query } from '../declare';
import type { AppDeps, Env } from '../env';
import type { EvalDeps } from '@zero/runtime/evals/drive-eval';

// The evals code loads with the first evals request, not at cold start.
const evals = () =>
  Promise.all([
    import('@zero/runtime/evals/eval-store'),
    import('@zero/runtime/evals/drive-eval'),
    import('@zero/runtime/evals/dataset'),
    import('@zero/runtime/evals/from-sessions'),
    import('@zero/runtime/evals/report'),
  ]).then(([store, drive, dataset, fromSessions, report]) => ({ ...store, ...drive, ...dataset, ...fromSessions, ...report }));

/** The largest dataset body: a file of cases, as JSON. */
const MAX_DATASET_BYTES = 11 * 1024 * 1024;

/**
 * Evals (`/api/v2/evals`): datasets (deployment-wide, versioned), and runs of a dataset against variants
 * (their creator's, or an administrator's to see), driven in the background; a read of a running run
 * carries it on when its driver died.
 */
export function evalRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  const evalDeps = async () => {
    const m = await evals();
    const store = new m.EvalStore(deps.artifacts);
    const reportEnded = (run: EvalRun) => import('@zero/integrations/github/eval-check').then((g) => g.reportEvalRunOnGitHub(deps.github, store, run));
    return { m, deps: { ...deps, evals: store, reportEnded } };
  };
  const runId = param(z.object({ run_id: z.string().regex(/^evr_[a-f0-9]{20}$/, 'must be an eval run id (evr_…)') }));
  /** How far the run is: cases with a result, of every case under every variant. */
  const progress = async (store: EvalDeps['evals'], run: EvalRun) => {
    const [results, dataset] = await Promise.all([store.results(run.id), store.getDataset(run.dataset, run.dataset_version)]);
    return { done: results.length, total: run.variants.length * (dataset?.cases.length ?? 0) };
  };
  const mine = (run: EvalRun | undefined, user: { id: string; admin: boolean }, id: string) => {
    if (!run || (run.created_by !== user.id && !user.admin)) throw notFound(`no eval run "${id}"`, 'run_id');
    return run;
  };

  app.post('/evals/datasets', describe({ summary: 'Store a new version of a dataset: from its cases, a YAML/JSON/JSONL file, or recorded sessions', responses: { 201: datasetResponseSchema } }), json(createDatasetRequestSchema, { maxBytes: MAX_DATASET_BYTES }), async (c) => {
    const body = c.req.valid('json');
    const user = c.get('user');
    const { m, deps: d } = await evalDeps();
    let content;
    if (body.content) content = body.content;
    else if (body.file) {
      try {
        content = m.parseDatasetFile(body.file.text, body.file.format);
      } catch (error) {
        if (error instanceof m.DatasetFileError) throw invalidField(`file.${error.field}`, error.message.slice(error.field.length + 2));
        throw error;
      }
    } else {
      const cases = await m.casesFromSessions(deps.sessions, user.id, body.from_sessions!);
      if (!cases.length) throw invalidField('from_sessions', 'no session of yours matches with a finished run');
      content = { cases, ...(body.rubric ? { rubric: body.rubric } : {}), ...(body.checks ? { checks: body.checks } : {}) };
    }
    const dataset = await d.evals.saveDataset({ name: body.name, created_at: new Date().toISOString(), created_by: user.id, ...content, ...(body.description ? { description: body.description } : {}) });
    return c.json({ dataset }, 201);
  });

  app.get('/evals/datasets', describe({ summary: 'Every dataset and its latest version', responses: { 200: datasetListSchema } }), async (c) => {
    const { deps: d } = await evalDeps();
    return c.json({ datasets: await d.evals.listDatasets() });
  });

  app.get(
    '/evals/datasets/:name',
    describe({ summary: "A dataset's version (its latest unless `version` is given)", responses: { 200: datasetResponseSchema } }),
    param(z.object({ name: datasetNameSchema })),
    query(z.object({ version: z.coerce.number().int().positive().optional() })),
    async (c) => {
      const { name } = c.req.valid('param');
      const { version } = c.req.valid('query');
      const { deps: d } = await evalDeps();
      const dataset = await d.evals.getDataset(name, version);
      if (!dataset) throw notFound(`no dataset "${name}"${version ? ` version ${version}` : ''}`, 'name');
      return c.json({ dataset });
    },
  );

  app.post('/evals/runs', describe({ summary: 'Run a dataset against variants (in the background); follow it with GET …/runs/:id', responses: { 201: evalRunResponseSchema } }), json(createEvalRunRequestSchema), async (c) => {
    const body = c.req.valid('json');
    const user = c.get('user');
    const { m, deps: d } = await evalDeps();
    if (body.github_check) {
      const { githubClient } = await import('@zero/integrations/github/settings');
      if (!githubClient(deps.github, undefined, body.github_check.repo, 'github_check').tokenRef) throw invalidField('github_check', 'this deployment has no GitHub credentials to post a check run with (ZERO_GITHUB_APP_ID or ZERO_GITHUB_TOKEN)');
    }
    const dataset = await d.evals.getDataset(body.dataset, body.version);
    if (!dataset) throw invalidField(body.version ? 'version' : 'dataset', `no dataset "${body.dataset}"${body.version ? ` version ${body.version}` : ''}`);
    for (const [i, v] of body.variants.entries()) {
      if (v.agent_id) await requireAgent(deps.catalog, v.agent_id).catch(() => Promise.reject(invalidField(`variants.${i}.agent_id`, `no agent "${v.agent_id}"`)));
    }
    const run: EvalRun = {
      v: 1,
      id: m.newEvalRunId(),
      dataset: dataset.name,
      dataset_version: dataset.version,
      variants: body.variants,
      ...(body.baseline ? { baseline: body.baseline } : {}),
      status: 'running',
      concurrency: body.concurrency,
      ...(body.max_cost_usd_per_case ? { max_cost_usd_per_case: body.max_cost_usd_per_case } : {}),
      ...(body.grader_model ? { grader_model: body.grader_model } : {}),
      ...(body.github_check ? { github_check: body.github_check } : {}),
      created_by: user.id,
      created_at: new Date().toISOString(),
    };
    await d.evals.putRun(run);
    m.wakeEvalRun(d, run);
    return c.json({ run, done: 0, total: run.variants.length * dataset.cases.length }, 201);
  });

  app.get('/evals/runs', describe({ summary: 'Your eval runs (every run for administrators), newest first', responses: { 200: evalRunListSchema } }), async (c) => {
    const user = c.get('user');
    const { deps: d } = await evalDeps();
    return c.json({ runs: (await d.evals.listRuns()).filter((r) => user.admin || r.created_by === user.id) });
  });

  app.get('/evals/runs/:run_id', describe({ summary: 'An eval run and its progress (a run whose driver died is carried on)', responses: { 200: evalRunResponseSchema } }), runId, async (c) => {
    const id = c.req.valid('param').run_id;
    const { m, deps: d } = await evalDeps();
    const run = mine(await d.evals.getRun(id), c.get('user'), id);
    m.wakeEvalRun(d, run);
    return c.json({ run, ...(await progress(d.evals, run)) });
  });

  app.post('/evals/runs/:run_id/cancel', describe({ summary: 'Cancel an eval run: no further case starts (cases under way finish)', responses: { 200: evalRunResponseSchema } }), runId, async (c) => {
    const id = c.req.valid('param').run_id;
    const { deps: d } = await evalDeps();
    const run = mine(await d.evals.getRun(id), c.get('user'), id);
    if (run.status === 'completed') throw conflict(`eval run "${id}" is already completed`);
    if (run.status === 'cancelled') return c.json({ run, ...(await progress(d.evals, run)) });
    let cancelled: EvalRun = { ...run, status: 'cancelled', completed_at: new Date().toISOString() };
    await d.evals.putRun(cancelled);
    if (cancelled.github_check) await d.evals.putRun((cancelled = await d.reportEnded(cancelled)));
    return c.json({ run: cancelled, ...(await progress(d.evals, cancelled)) });
  });

  app.get(
    '/evals/runs/:run_id/results',
    describe({ summary: "An eval run's report: per variant (mean score with a 95% CI, pass rate, cost, tokens, latency, steps) and per case; regressions against the baseline", responses: { 200: evalReportSchema } }),
    runId,
    query(z.object({ threshold: z.coerce.number().min(0).max(1).default(0.05), format: z.enum(['json', 'markdown']).default('json') })),
    async (c) => {
      const id = c.req.valid('param').run_id;
      const { threshold, format } = c.req.valid('query');
      const { m, deps: d } = await evalDeps();
      const run = mine(await d.evals.getRun(id), c.get('user'), id);
      const [results, dataset] = await Promise.all([d.evals.results(id), d.evals.getDataset(run.dataset, run.dataset_version)]);
      const report = m.evalReport(run, dataset ?? { cases: [] }, results, threshold);
      if (format === 'markdown') return c.text(m.reportMarkdown(report), 200, { 'content-type': 'text/markdown; charset=utf-8' });
      return c.json(report);
    },
  );

  return app;
}
