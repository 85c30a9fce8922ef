import * as z from 'zod';
import { MAX_MESSAGE_CHARS, complexityLevelSchema, projectIdSchema } from './fields';
import { MAX_RUBRIC_CHARS } from './outcome';
import { MAX_SYSTEM_PROMPT_CHARS } from './system-prompt';

/*
 * Eval datasets: cases (the user messages of a session to replay, the project they act on, what a good
 * answer holds) and the checks that score a case's answer. One schema for the file a person writes, the
 * API's body and the stored version.
 */

const toolName = z.string().min(1).max(128);

/** A deterministic check of a case's result; each passes or fails with a detail saying why. */
export const evalCheckSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('tool_called'), tool: toolName }),
  z.strictObject({ type: z.literal('tool_not_called'), tool: toolName }),
  /** These tools were called in this order (other calls may come between). */
  z.strictObject({ type: z.literal('tool_sequence'), tools: z.array(toolName).min(1).max(50) }),
  z.strictObject({ type: z.literal('answer_matches'), pattern: z.string().min(1).max(1000), flags: z.string().regex(/^[imsu]*$/, 'may hold only i, m, s and u').optional() }),
  z.strictObject({ type: z.literal('answer_not_matches'), pattern: z.string().min(1).max(1000), flags: z.string().regex(/^[imsu]*$/, 'may hold only i, m, s and u').optional() }),
  /** The answer (its first JSON object or array, or the whole text) is JSON valid against this JSON Schema. */
  z.strictObject({ type: z.literal('answer_json_schema'), schema: z.looseObject({}) }),
  /** The case's project copy holds this file afterwards, containing `contains` when given. */
  z.strictObject({ type: z.literal('file_written'), path: z.string().min(1).max(1024), contains: z.string().max(10_000).optional() }),
  z.strictObject({ type: z.literal('max_cost_usd'), value: z.number().nonnegative() }),
  z.strictObject({ type: z.literal('max_steps'), value: z.number().int().positive() }),
]);
export type EvalCheck = z.infer<typeof evalCheckSchema>;

/** One case: the user messages to send in order, in a fresh session on a copy of its project. */
export const evalCaseSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _, . or -'),
  messages: z.array(z.string().trim().min(1, 'must not be empty').max(MAX_MESSAGE_CHARS)).min(1, 'must hold at least one message').max(20),
  project_id: projectIdSchema.optional(),
  /** The answer the recorded session gave (or a person wrote): shown beside each variant's, and to the grader. */
  reference: z.string().max(100_000).optional(),
  /** Facts a good answer states: each becomes a criterion of the grader's rubric. */
  expected_facts: z.array(z.string().min(1).max(2000)).max(50).optional(),
  /** This case's rubric (over the dataset's). */
  rubric: z.string().max(MAX_RUBRIC_CHARS).optional(),
  checks: z.array(evalCheckSchema).max(50).optional(),
  /** Where the case came from: a recorded session. */
  source_session_id: z.string().max(128).optional(),
});
export type EvalCase = z.infer<typeof evalCaseSchema>;

export const datasetNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1 to 64 lowercase letters, digits, _ or -, starting with a letter or digit');

/** A dataset's content: its cases, and the rubric and checks every case gets. At most 1000 cases. */
export const datasetContentSchema = z
  .strictObject({
    description: z.string().max(2000).optional(),
    rubric: z.string().max(MAX_RUBRIC_CHARS).optional(),
    checks: z.array(evalCheckSchema).max(50).optional(),
    cases: z.array(evalCaseSchema).min(1, 'must hold at least one case').max(1000),
  })
  .superRefine((d, ctx) => {
    const seen = new Set<string>();
    d.cases.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: 'custom', path: ['cases', i, 'id'], message: `"${c.id}" is used twice` });
      seen.add(c.id);
    });
  });
export type DatasetContent = z.infer<typeof datasetContentSchema>;

/** A stored version of a dataset: immutable once written. */
export const datasetSchema = z.object({
  v: z.literal(1),
  name: datasetNameSchema,
  version: z.number().int().positive(),
  created_at: z.string(),
  created_by: z.string(),
  ...datasetContentSchema.shape,
});
export type Dataset = z.infer<typeof datasetSchema>;

/** How a run's variant differs from the agent as deployed. */
export const evalVariantSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _, . or -'),
  /** The agent (an agent file's id, or a Managed Agents API agent's): another agent, or another version of one. */
  agent_id: z.string().min(1).max(64).optional(),
  /** The model, and through it the provider (a provider's prefix, as in agent files: `openai:gpt-5`, `bedrock:…`). */
  model: z.string().min(1).max(100).optional(),
  /** The tier, as a task complexity (F1 light … F5 heavy): picks the deployment's model of that tier. */
  complexity: complexityLevelSchema.optional(),
  /** Extended thinking's budget in tokens (0: off): the effort the model spends. */
  thinking_budget: z.number().int().min(0).max(128_000).optional(),
  /** A cap on each run's tool loop (model calls). */
  max_tool_iterations: z.number().int().positive().max(1000).optional(),
  /** Text put before each case's first message: a prompt change tried without a new agent version. */
  prompt_prefix: z.string().max(20_000).optional(),
  /** A system prompt that stands in for the agent's own definition in each case's runs (Zero's tools list, speaker rules, voice and project sections stay). */
  system_prompt: z.string().min(1).max(MAX_SYSTEM_PROMPT_CHARS).optional(),
  /** Text added at the end of the system prompt of each case's runs. */
  append_system_prompt: z.string().min(1).max(MAX_SYSTEM_PROMPT_CHARS).optional(),
});
export type EvalVariant = z.infer<typeof evalVariantSchema>;


/** Where an eval run reports on GitHub: a check run on a commit, its conclusion from the gate, its summary the Markdown report. */
export const evalGitHubCheckSchema = z.strictObject({
  /** `owner/name`. */
  repo: z.string().regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'must be owner/name'),
  /** The commit the check run is put on (a full sha). */
  sha: z.string().regex(/^[0-9a-f]{40}$/, 'must be a commit sha (40 hex digits)'),
  /** The gate's threshold: a variant worse than the baseline by more than this fails the check (as the report's `threshold`). */
  threshold: z.number().min(0).max(1).default(0.05),
});

/** How an eval run's check run went: posted once, as the run ends. */
export const evalGitHubCheckReportSchema = z.object({
  status: z.enum(['delivered', 'failed']),
  conclusion: z.enum(['success', 'failure', 'cancelled']),
  check_run_id: z.number().int().optional(),
  attempts: z.number().int(),
  last_status: z.number().int().optional(),
  last_error: z.string().optional(),
  at: z.string(),
});

/** The record of an eval run: a dataset version against variants; its cases' results are stored one per object beside it. */
export const evalRunSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  dataset: z.string(),
  dataset_version: z.number().int().positive(),
  variants: z.array(evalVariantSchema).min(1).max(10),
  /** The variant others are compared with (the gate). */
  baseline: z.string().optional(),
  status: z.enum(['running', 'completed', 'cancelled']),
  /** Cases run at once (sessions in the worker queue). */
  concurrency: z.number().int().min(1).max(50),
  /** Each case's session budget in dollars: its runs stop with `budget_reached` once spent. */
  max_cost_usd_per_case: z.number().positive().optional(),
  /** The grader's model (the deployment's standard tier when absent). */
  grader_model: z.string().optional(),
  /** A check run on GitHub with the report, posted as the run ends; `report` says how that went. */
  github_check: evalGitHubCheckSchema.extend({ report: evalGitHubCheckReportSchema.optional() }).optional(),
  created_by: z.string(),
  created_at: z.string(),
  completed_at: z.string().optional(),
});
export type EvalRun = z.infer<typeof evalRunSchema>;

export const checkResultSchema = z.object({ type: z.string(), pass: z.boolean(), detail: z.string() });
export type CheckResult = z.infer<typeof checkResultSchema>;

/** One case's result under one variant: written once, when the case's session has answered every message and was graded. */
export const caseResultSchema = z.object({
  v: z.literal(1),
  case_id: z.string(),
  variant: z.string(),
  session_id: z.string(),
  /** How the case's last run ended. */
  status: z.string(),
  answer: z.string(),
  tool_calls: z.array(z.object({ name: z.string(), input: z.unknown(), is_error: z.boolean().optional() })),
  steps: z.number().int().nonnegative(),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number(), cost_usd: z.number() }),
  /** From the first message's arrival to the last run's end. */
  latency_ms: z.number().nonnegative(),
  checks: z.array(checkResultSchema),
  grade: z.object({ verdict: z.string(), score: z.number(), reasons: z.string(), cost_usd: z.number() }).optional(),
  /** 0 to 1: the mean of the grader's score and the share of checks passed (whichever the case has; 1 with neither and a completed run). */
  score: z.number().min(0).max(1),
  pass: z.boolean(),
  completed_at: z.string(),
});
export type CaseResult = z.infer<typeof caseResultSchema>;


/** Which recorded sessions become cases: the caller's sessions, filtered. At most 200 cases. */
export const sessionPickSchema = z.strictObject({
  session_ids: z.array(z.string().min(1).max(128)).min(1).max(200).optional(),
  agent_id: z.string().min(1).max(64).optional(),
  /** A word the session's title holds (a tag such as "#billing" in titles). */
  tag: z.string().min(1).max(100).optional(),
  since: z.iso.datetime().optional(),
  until: z.iso.datetime().optional(),
  limit: z.number().int().min(1).max(200).default(50),
  /** Keep each session's last answer as the case's reference (shown beside the variants' answers and to the grader). */
  include_reference: z.boolean().default(true),
});
export type SessionPick = z.infer<typeof sessionPickSchema>;

/** The body of `POST /api/v2/evals/datasets`: a new version of the dataset `name`, from its content, a file's text, or recorded sessions. */
export const createDatasetRequestSchema = z
  .strictObject({
    name: datasetNameSchema,
    description: z.string().max(2000).optional(),
    content: datasetContentSchema.optional(),
    file: z.strictObject({ format: z.enum(['yaml', 'json', 'jsonl']), text: z.string().min(1).max(10_000_000) }).optional(),
    from_sessions: sessionPickSchema.optional(),
    /** With `from_sessions`: the rubric and checks every case gets. */
    rubric: z.string().max(MAX_RUBRIC_CHARS).optional(),
    checks: z.array(evalCheckSchema).max(50).optional(),
  })
  .superRefine((body, ctx) => {
    const given = [body.content, body.file, body.from_sessions].filter((x) => x !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', path: ['content'], message: 'send exactly one of content, file and from_sessions' });
    for (const field of ['rubric', 'checks'] as const) {
      if (body[field] !== undefined && !body.from_sessions) ctx.addIssue({ code: 'custom', path: [field], message: 'goes with from_sessions; put it in the content or the file' });
    }
  });
export type CreateDatasetRequest = z.infer<typeof createDatasetRequestSchema>;

export const datasetResponseSchema = z.object({ dataset: datasetSchema });
export const datasetListSchema = z.object({ datasets: z.array(z.object({ name: z.string(), latest_version: z.number().int() })) });

/** The body of `POST /api/v2/evals/runs`. */
export const createEvalRunRequestSchema = z
  .strictObject({
    dataset: datasetNameSchema,
    /** The dataset's version; its latest when absent. */
    version: z.number().int().positive().optional(),
    variants: z.array(evalVariantSchema).min(1).max(10),
    baseline: z.string().optional(),
    concurrency: z.number().int().min(1).max(50).default(4),
    max_cost_usd_per_case: z.number().positive().max(1000).optional(),
    grader_model: z.string().min(1).max(100).optional(),
    github_check: evalGitHubCheckSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const names = body.variants.map((v) => v.name);
    names.forEach((n, i) => {
      if (names.indexOf(n) !== i) ctx.addIssue({ code: 'custom', path: ['variants', i, 'name'], message: `"${n}" is used twice` });
    });
    if (body.baseline !== undefined && !names.includes(body.baseline)) ctx.addIssue({ code: 'custom', path: ['baseline'], message: `must name one of the variants (${names.join(', ')})` });
  });
export type CreateEvalRunRequest = z.infer<typeof createEvalRunRequestSchema>;

export const evalRunResponseSchema = z.object({ run: evalRunSchema, done: z.number().int(), total: z.number().int() });
export const evalRunListSchema = z.object({ runs: z.array(evalRunSchema) });

const variantSummarySchema = z.object({
  variant: z.string(),
  cases: z.number().int(),
  mean_score: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  pass_rate: z.number(),
  cost_usd: z.number(),
  grader_cost_usd: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  latency_ms_p50: z.number(),
  latency_ms_p90: z.number(),
  mean_steps: z.number(),
});

/** `GET /api/v2/evals/runs/:id/results`: the report (JSON; `?format=markdown` for Markdown). */
export const evalReportSchema = z.object({
  run: evalRunSchema,
  done: z.number().int(),
  total: z.number().int(),
  variants: z.array(variantSummarySchema),
  cases: z.array(
    z.object({
      case_id: z.string(),
      reference: z.string().optional(),
      by_variant: z.record(
        z.string(),
        z.object({
          answer: z.string(),
          score: z.number(),
          pass: z.boolean(),
          status: z.string(),
          steps: z.number(),
          tools: z.array(z.string()),
          checks: z.array(checkResultSchema),
          grade: caseResultSchema.shape.grade,
        }),
      ),
    }),
  ),
  regressions: z.array(z.object({ variant: z.string(), baseline: z.string(), score_delta: z.number(), pass_rate_delta: z.number() })),
});
export type EvalReportBody = z.infer<typeof evalReportSchema>;
