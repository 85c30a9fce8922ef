import * as z from 'zod';
import {
  chatIdSchema,
  projectIdSchema,
  roleSchema,
  sessionIdSchema,
  strategySchema,
  userIdSchema,
  voiceModeSchema,
  thinkingRequestSchema,
  maxToolIterationsSchema,
  complexityLevelSchema,
} from './fields';
import { planSchema, planStepsSchema } from './plan';
import { attachmentParamSchema, MAX_ATTACHMENTS_PER_MESSAGE } from './attachments';
import { outcomeRequestSchema } from './outcome';

const id = sessionIdSchema;
const agentId = z.string().min(1).max(64);
const title = z.string().trim().min(1).max(200);
const name = z.string().trim().min(1).max(200);

/** At most this many client tools per request, and this large an input schema (as JSON). */
export const MAX_CLIENT_TOOLS = 32;
export const MAX_CLIENT_TOOL_SCHEMA_CHARS = 16_000;

/**
 * A tool the client runs: offered to the model for the run; a call waits
 * (as for an approval) until a member's client answers it with
 * `POST /sessions/:id/tool-results/:tool_call_id`. Its name must not be one of
 * the deployment's tools (checked where the registry is known).
 */
export const clientToolSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
  description: z.string().max(4000).default(''),
  input_schema: z
    .looseObject({ type: z.literal('object', 'must be a JSON Schema of type "object"') })
    .refine((schema) => JSON.stringify(schema).length <= MAX_CLIENT_TOOL_SCHEMA_CHARS, `must be at most ${MAX_CLIENT_TOOL_SCHEMA_CHARS} characters as JSON`),
  /**
   * A deployment tool this one stands in for: the run neither offers nor runs the agent's tool of
   * that name (a self-hosted environment's `bash`, run by a worker, stands in for `run_command`).
   */
  replaces: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/).optional(),
});
export type ClientTool = z.infer<typeof clientToolSchema>;

const clientTools = z
  .array(clientToolSchema)
  .max(MAX_CLIENT_TOOLS)
  .superRefine((tools, ctx) => {
    const seen = new Set<string>();
    tools.forEach((tool, i) => {
      if (seen.has(tool.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${tool.name}" is declared twice` });
      seen.add(tool.name);
    });
  });

/** A message for a session, and how to run it: what `POST /api/v2/chat` hands to the session once a plan is turned into its message. */
export const chatMessageSchema = z.strictObject({
  session_id: id.optional(),
  agent_id: id.optional(),
  project_id: projectIdSchema.optional(),
  // The size limit is checked separately so that it can answer 413 rather than 400.
  message: z.string().trim().min(1, 'must not be empty'),
  /** Images (PNG, JPEG, GIF, WebP) and PDFs for the model to see with the message: base64 bytes or Files API ids. */
  attachments: z.array(attachmentParamSchema).max(MAX_ATTACHMENTS_PER_MESSAGE).optional(),
  voice_mode: voiceModeSchema.optional(),
  model: z.string().min(1).max(100).optional(),
  stream: z.boolean().optional(),
  strategy: strategySchema.optional(),
  client_tools: clientTools.optional(),
  /** Extended thinking for this message's run, over the agent's and the deployment's: a budget, or `false` for none. */
  thinking: thinkingRequestSchema.optional(),
  /** The steps of the plan the message was made from (see `plan/progress.ts`): the run reports its progress through them. */
  plan_steps: planStepsSchema.optional(),
  /** A cap on this message's tool loop (model calls of its run), over the agent's `max_tool_iterations` and `ZERO_MAX_STEPS`: the strictest wins. */
  max_tool_iterations: maxToolIterationsSchema.optional(),
  /** The task's complexity (F1–F5), over the agent's `complexity` and the deployment's rules: picks the model tier and whether tools are used. */
  complexity: complexityLevelSchema.optional(),
  /** Runs the tool loop with exactly these of the agent's tools (whatever the complexity says); a tool the agent lacks is not added. */
  tools_required: z.array(z.string().min(1).max(128)).min(1, 'must name at least one tool').max(100).optional(),
  /** An outcome the message works toward: after each answer a grader scores it against the rubric and may send the agent back (up to `max_iterations`, default 3). */
  outcome: outcomeRequestSchema.optional(),
});
export type ChatRequest = z.infer<typeof chatMessageSchema>;

/** The body of `POST /api/v2/chat`: a `message`, or a `plan` (goal, context, steps) the server turns into one. */
export const chatRequestSchema = chatMessageSchema
  // A plan's steps come with its plan.
  .omit({ plan_steps: true })
  .extend({ message: chatMessageSchema.shape.message.optional(), plan: planSchema.optional() })
  .superRefine((body, ctx) => {
    if (body.message === undefined && body.plan === undefined) ctx.addIssue({ code: 'custom', path: ['message'], message: 'is required (or send a plan)' });
    if (body.message !== undefined && body.plan !== undefined) ctx.addIssue({ code: 'custom', path: ['plan'], message: 'must not be sent with a message: send one or the other' });
  });
export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

const chatOptions = chatMessageSchema.pick({ agent_id: true, project_id: true, voice_mode: true, model: true, strategy: true, client_tools: true, thinking: true, max_tool_iterations: true, complexity: true, tools_required: true, outcome: true });

/** The body of `POST /api/v2/ui/chat`: the AI SDK's default chat transport, plus Zero's options as extra body fields. */
export const uiChatRequestSchema = z.strictObject({
  id: chatIdSchema,
  messages: z.array(z.looseObject({ role: z.string() })).min(1, 'must hold at least the new user message'),
  trigger: z.enum(['submit-message', 'regenerate-message']),
  messageId: z.string().max(200).optional(),
  ...chatOptions.shape,
});
export type UIChatRequest = z.infer<typeof uiChatRequestSchema>;

/** The one message Zero takes from a `useChat` request: the last, a user message with text. */
export const uiUserMessageSchema = z.looseObject({
  role: z.literal('user', "the last message must be the user's new message"),
  parts: z.array(z.looseObject({ type: z.string(), text: z.unknown().optional() })),
});

/** The body of `POST /api/v2/sessions`. */
export const createSessionRequestSchema = z.strictObject({
  title: title.optional(),
  agent_id: agentId.optional(),
  project_id: projectIdSchema.optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
  /** The session's budget in dollars: its runs stop with `budget_reached` once it is spent (capped by `ZERO_BUDGET_SESSION_MAX_USD`). */
  max_cost_usd: z.number().positive().max(1_000_000).optional(),
});
export type CreateSessionRequest = z.infer<typeof createSessionRequestSchema>;

/** The body of `PATCH /api/v2/sessions/:id`; changing `strategy` takes an owner. */
export const updateSessionRequestSchema = z.strictObject({
  title: title.optional(),
  agent_id: agentId.optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
});
export type UpdateSessionRequest = z.infer<typeof updateSessionRequestSchema>;

/** The body of `POST /api/v2/sessions/:id/agent`. */
export const switchAgentRequestSchema = z.strictObject({ agent_id: agentId });

/** The body of `POST /sessions/:id/approvals/:tool_call_id`: run the call (`allow`) or not (`deny`; `message` is shown to the model). */
export const approvalRequestSchema = z.strictObject({
  decision: z.enum(['allow', 'deny']),
  message: z.string().max(2000).optional(),
  /** `session`: the same decision for this tool's later calls in the session (a session override; owners only). */
  remember: z.literal('session').optional(),
});
export type ApprovalDecisionRequest = z.infer<typeof approvalRequestSchema>;

/** The body of `POST /sessions/:id/tool-results/:tool_call_id`: a client tool's output, bounded like any tool's. */
export const toolResultRequestSchema = z.strictObject({
  content: z.string().max(1_000_000),
  is_error: z.boolean().optional(),
});
export type ToolResultRequest = z.infer<typeof toolResultRequestSchema>;

/** The body of `PUT …/members/:user_id` of a session or a project. */
export const memberRequestSchema = z.strictObject({ role: roleSchema, name: name.optional() });
export type MemberRequest = z.infer<typeof memberRequestSchema>;

/** The query of `GET /api/v2/sessions`. */
export const listSessionsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(2000).optional(),
  /** Only sessions whose title contains this (any case); see SESSION_SEARCH_SPAN for how far one page looks. */
  q: z.string().max(200).optional(),
});

/** The query of the streams a browser opens with `EventSource`, which cannot send headers. */
export const streamQuerySchema = z.object({ access_token: z.string().optional() });

/** The query of `GET /api/v2/sessions/:id/events`; the `Last-Event-ID` header takes precedence over `after`. */
export const sessionEventsQuerySchema = streamQuerySchema.extend({ after: z.string().max(40).optional() });

/** The body of `POST /api/v2/keys`: a key for oneself, or (administrators) for anyone. */
export const createKeyRequestSchema = z.strictObject({
  user_id: userIdSchema.optional(),
  name: name.optional(),
  label: name.optional(),
});

/** The query of `GET`/`DELETE /api/v2/keys`: whose keys (administrators only for another user's). */
export const keysQuerySchema = z.object({ user_id: userIdSchema.optional() });

/**
 * Where a hook's secret lives: the name of an environment variable of the
 * API function (in AWS, set from an SST secret). The secret itself is never
 * stored in S3. Only names under `ZERO_WEBHOOK_SECRET_` are accepted, so a
 * hook cannot be pointed at the process's other credentials.
 */
export const secretRefSchema = z
  .string()
  .regex(/^ZERO_WEBHOOK_SECRET_[A-Z0-9_]{1,100}$/, 'must name an environment variable starting with ZERO_WEBHOOK_SECRET_');

/**
 * Where a GitHub credential lives, by name, never the secret: a token's
 * environment variable under `ZERO_GITHUB_TOKEN` (a personal access token),
 * or a GitHub App under `ZERO_GITHUB_APP`, whose id and private key are the
 * variables `<name>_ID` and `<name>_PRIVATE_KEY` (Zero mints its
 * installation tokens). Only these names are accepted, so a hook cannot be
 * pointed at the process's other credentials.
 */
export const githubTokenRefSchema = z
  .string()
  .regex(/^ZERO_GITHUB_(TOKEN|APP)(_[A-Z0-9_]{1,100})?$/, 'must name an environment variable starting with ZERO_GITHUB_TOKEN, or a GitHub App starting with ZERO_GITHUB_APP')
  .refine((ref) => !/^ZERO_GITHUB_APP.*_(ID|PRIVATE_KEY)$/.test(ref), 'names the App, not its variables: "ZERO_GITHUB_APP" for ZERO_GITHUB_APP_ID and ZERO_GITHUB_APP_PRIVATE_KEY');

/** A git ref GitHub resolves: a branch, a tag or a commit sha (no "..", no leading or trailing "/", as git's own rules). */
export const gitRefSchema = z.string().regex(/^(?!\/)(?!.*\.\.)(?!.*\/$)[\w.\/-]{1,250}$/, 'must be a branch, tag or commit sha');

/** The body of `POST /api/v2/projects/:owner/:repo/hydrate`: the project's files become the GitHub repository's tree at `ref`. */
export const hydrateRequestSchema = z.strictObject({
  ref: gitRefSchema,
  /** The token's environment variable; by default `ZERO_GITHUB_TOKEN` when set, else none (public repositories). */
  token_ref: githubTokenRefSchema.optional(),
});

/** An accepted event: `pull_request` (every action), `pull_request.opened` (one action), or `*`. */
const hookEventSchema = z.string().regex(/^(\*|[a-z0-9_-]{1,64}(\.[a-z0-9_-]{1,64})?)$/, 'must look like "pull_request" or "pull_request.opened" or be "*"');

/** A hook as an administrator sends it (`PUT /api/v2/hooks/:hook_id`). */
export const hookInputSchema = z.strictObject({
  source: z.enum(['github', 'generic']),
  secret_ref: secretRefSchema,
  /** Events that start an investigation; anything else is answered 202 `{ignored: true}`. */
  events: z.array(hookEventSchema).min(1).max(50),
  agent_id: agentId,
  /** The project, as a template filled from the payload (`{{repository.full_name}}`) or a fixed `owner/repo`. */
  project: z.string().min(1).max(300).optional(),
  /** The message the agent answers, filled from the payload: `Review {{pull_request.title}}`. */
  prompt: z.string().min(1).max(20_000),
  /** The session's title, filled the same way; by default the hook and the event. */
  title: z.string().min(1).max(300).optional(),
  /** The session's owner: whose session the investigation is. */
  owner: z.strictObject({ user_id: userIdSchema, name: z.string().min(1).max(200).optional() }),
  /** Others who may follow the investigation. */
  members: z
    .array(z.strictObject({ user_id: userIdSchema, name: z.string().min(1).max(200).optional(), role: roleSchema.default('viewer') }))
    .max(50)
    .default([]),
  /** Receives a signed POST when the investigation ends. */
  callback_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).optional(),
  /** The investigation's report: always Markdown (`md`); with `pdf`, also rendered as a PDF beside it. */
  report_formats: z
    .array(z.enum(['md', 'pdf']))
    .min(1)
    .max(2)
    .refine((formats) => formats.includes('md'), 'must include "md": the Markdown report is always written')
    .refine((formats) => new Set(formats).size === formats.length, 'names a format twice')
    .default(['md']),
  /**
   * GitHub hooks: before the run, the project's files become the repository's
   * tree at the event's commit (a pull request's head, a push's `after`), and
   * a pull request's diff is stored as `.zero/pr.diff`.
   */
  hydrate: z.boolean().default(false),
  /** GitHub hooks: when the run ends, its report is posted on the pull request as a comment, or on the head commit as a check run. */
  report: z.strictObject({ github: z.enum(['comment', 'check_run']) }).optional(),
  /** The token for hydrating and reporting; by default `ZERO_GITHUB_TOKEN`. */
  github_token_ref: githubTokenRefSchema.optional(),
  /** Generic hooks: how far a request's timestamp may be from now, in seconds. */
  tolerance_seconds: z.number().int().min(30).max(3600).default(300),
});
export type HookInput = z.input<typeof hookInputSchema>;

/** An IANA time zone the runtime knows (`Europe/Lisbon`); checked with Intl, which knows the same names croner uses. */
const timeZoneSchema = z
  .string({ error: 'is required: an IANA time zone such as "Europe/Lisbon"' })
  .min(1)
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'is not an IANA time zone such as "Europe/Lisbon"');

/** A schedule as an administrator sends it (`PUT /api/v2/schedules/:schedule_id`). */
export const scheduleInputSchema = z.strictObject({
  /** Five fields: minute hour day-of-month month day-of-week (`0 9 * * 1-5`); parsed with croner when stored. */
  cron: z.string({ error: 'is required: five fields such as "0 9 * * 1-5"' }).max(200).regex(/^\s*\S+(\s+\S+){4}\s*$/, 'must have five fields: minute hour day-of-month month day-of-week'),
  /** The time zone the cron expression is read in; required, so "9 o'clock" means someone's 9 o'clock. */
  timezone: timeZoneSchema,
  agent_id: agentId,
  /** A fixed `owner/repo` project the session works on. */
  project: projectIdSchema.optional(),
  /** The message the agent answers at each scheduled time. */
  prompt: z.string().min(1).max(20_000),
  /** Whose session each run is. */
  owner: z.strictObject({ user_id: userIdSchema, name: z.string().min(1).max(200).optional() }),
  members: z
    .array(z.strictObject({ user_id: userIdSchema, name: z.string().min(1).max(200).optional(), role: roleSchema.default('viewer') }))
    .max(50)
    .default([]),
  /** A paused schedule starts nothing; storing it with `paused: false` resumes it (and forgets its failures). */
  paused: z.boolean().default(false),
});
export type ScheduleInput = z.input<typeof scheduleInputSchema>;

/** The events a subscription may receive. */
export const subscriptionEventSchema = z.enum([
  'session.created',
  'run.completed',
  'run.failed',
  'run.awaiting_approval',
  // A webhook investigation ended, or waits for people: the events a hook's callback_url receives.
  'investigation.finished',
  'investigation.needs_action',
]);
export type SubscriptionEvent = z.infer<typeof subscriptionEventSchema>;

/**
 * How a subscription's messages are shaped: `zero` (the default), Zero's own events; `managed_agents`,
 * the Managed Agents API's webhook events (`BetaWebhookEvent`, for the SDK's `webhooks.unwrap`).
 */
export const subscriptionFormatSchema = z.enum(['zero', 'managed_agents']);
export type SubscriptionFormat = z.infer<typeof subscriptionFormatSchema>;

/** A subscription as an administrator sends it (`PUT /api/v2/subscriptions/:id`): where Zero POSTs which events, signed with which secret. */
export const subscriptionInputSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
  events: z.array(subscriptionEventSchema).min(1).max(20),
  /** The signing secret's environment variable (`whsec_<base64>`, as Standard Webhooks' libraries expect). */
  secret_ref: secretRefSchema,
  description: z.string().max(500).optional(),
  format: subscriptionFormatSchema.default('zero'),
});

/** The query of `POST /api/v2/projects/:owner/:repo/archive`: leading path segments to drop, as `tar --strip-components`. */
export const archiveQuerySchema = z.object({ strip: z.coerce.number().int().min(0).max(10).default(0) });

/** An upload's id: 32 lowercase hex digits, as `POST /api/v2/projects/:owner/:repo/uploads` gives it. */
export const uploadIdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'must be an upload id: 32 lowercase hex digits, as the upload route gave it');

/**
 * `POST /api/v2/projects/:owner/:repo/uploads`: an archive sent straight to S3. `bytes`, the archive's size
 * if known, is checked against the limit before anything is uploaded; `strip` is kept for the completion.
 */
export const uploadRequestSchema = z.strictObject({
  bytes: z.number().int().min(1).optional(),
  strip: z.number().int().min(0).max(10).default(0),
});
export type UploadRequest = z.input<typeof uploadRequestSchema>;

/** The query of a project area's listing: only what lies under this folder. */
export const listProjectFilesQuerySchema = z.object({ under: z.string().max(1024).optional().transform((v) => v || undefined) });
