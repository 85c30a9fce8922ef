import * as z from 'zod';
import { hookInputSchema, scheduleInputSchema, subscriptionInputSchema } from './requests';
import { logRecordSchema, type LogRecord } from '../records/log-record';
import { outcomeGradeSchema } from './outcome';
import { authorSchema, roleSchema, runStatusSchema, strategySchema, usageSchema, voiceModeSchema } from './fields';
import { permissionMapSchema, permissionModeSchema, toolPolicySchema } from './permissions';
import { mcpServerViewSchema } from './mcp-servers';
import { sessionSpendSchema } from './budgets';

// Objects that are stored items as well are loose: the API may send a field a client does not know yet.

/** Every refusal: a stable `code`, a message for a person, and the offending `field` where there is one. */
export const errorResponseSchema = z.object({
  error: z.looseObject({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

export const healthResponseSchema = z.object({ ok: z.literal(true) });

/** The answer of `POST /chat` without `stream`: the run's text, tool calls and outcome in one body. */
export const chatResultSchema = z.object({
  session_id: z.string(),
  run_id: z.string(),
  status: runStatusSchema,
  /** The steps' texts, kept apart by a blank line; a retried step's text is dropped. */
  text: z.string(),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown(), result: z.string().optional(), is_error: z.boolean().optional() })),
  /** One entry per child run (a delegated task); its answer is the `delegate_agent` call's result. */
  delegations: z.array(
    z.object({
      run_id: z.string(),
      agent_id: z.string(),
      parent_run_id: z.string().optional(),
      tool_call_id: z.string().optional(),
      status: runStatusSchema.optional(),
      usage: usageSchema.optional(),
    }),
  ),
  usage: usageSchema.optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type ChatResult = z.infer<typeof chatResultSchema>;

/** A session's settings. */
export const sessionSchema = z.looseObject({
  session_id: z.string(),
  title: z.string(),
  agent_id: z.string(),
  project_id: z.string().optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
  created_by: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  /** An owner set permission overrides (`GET /sessions/:id/permissions` shows them). */
  has_permission_overrides: z.boolean().optional(),
  /** An owner (or a hook) set the session a budget (`GET /sessions/:id` → `spend` shows it); runs read its counter only then. */
  has_budget: z.boolean().optional(),
  /** Since when the session's run waits for a person (an approval or a client tool's result); null or absent: it does not. */
  awaiting_approval_since: z.string().nullable().optional(),
  /**
   * The session is a fork: its history is `session_id`'s records up to `log_seq` (and its events up to
   * `event_seq`), read from the parent, then its own (see docs/sessions-steering.md).
   */
  forked_from: z.object({ session_id: z.string(), log_seq: z.number().int().nonnegative(), event_seq: z.number().int().nonnegative() }).optional(),
});
export type Session = z.infer<typeof sessionSchema>;
export type ForkPoint = NonNullable<Session['forked_from']>;

/** `POST /sessions/:id/fork`: the record (a history entry's `seq`) the fork's history ends at. */
export const forkSessionRequestSchema = z.strictObject({
  at_event: z.coerce.number().int().positive().describe("A history record's `seq`: the fork's history is the session's up to and with it"),
  title: z.string().min(1).max(200).optional(),
});
/** The forks made of a session, oldest first. */
export const sessionForksSchema = z.object({ forks: z.array(z.object({ session_id: z.string(), log_seq: z.number().int(), forked_by: z.string(), at: z.string() })) });

export const sessionResponseSchema = z.object({ session: sessionSchema });

/** A page of the caller's sessions, newest first; pass `next_cursor` back as `cursor` for the next. */
export const sessionListSchema = z.object({
  /** `unread`: the session's events went past what the caller last saw of it. */
  sessions: z.array(sessionSchema.extend({ role: roleSchema, unread: z.boolean().optional() })),
  next_cursor: z.string().optional(),
});
export type SessionList = z.infer<typeof sessionListSchema>;

export const sessionMemberSchema = z.looseObject({ user_id: z.string(), name: z.string().optional(), role: roleSchema, added_at: z.string() });
export type SessionMember = z.infer<typeof sessionMemberSchema>;
export const sessionMemberResponseSchema = z.object({ member: sessionMemberSchema });
export const sessionMembersResponseSchema = z.object({ members: z.array(sessionMemberSchema) });
/** The members with a live view open on a session now, each once, earliest first. */
export const sessionWatchersResponseSchema = z.object({ watchers: z.array(z.object({ user_id: z.string(), name: z.string().optional(), since: z.string() })) });

/** A content block of an assistant message, as the Messages API returned it (`text`, `tool_use`, `server_tool_use`, …). */
export const contentBlockSchema = z.looseObject({ type: z.string() });
export type ContentBlock = z.infer<typeof contentBlockSchema>;

/**
 * One entry of a session's history: what was said, called, answered, and how each run ended. It is the log
 * record as stored (records/log-record.ts, the one schema), every kind but `void` (a sealed gap, never shown),
 * open to fields added later.
 */
export type HistoryRecord = Exclude<LogRecord, { kind: 'void' }> & { [field: string]: unknown };
const historyKinds = (logRecordSchema.options as readonly z.ZodObject[])
  .filter((option) => (option.shape.kind as z.ZodLiteral).value !== 'void')
  .map((option) => option.loose());
export const historyRecordSchema = z.discriminatedUnion('kind', historyKinds as [z.ZodObject, ...z.ZodObject[]]) as unknown as z.ZodType<HistoryRecord>;

/**
 * A call that waits for an editor or owner: `approval`, a decision (`POST /sessions/:id/approvals/:tool_call_id`);
 * `client_tool`, a client's result (`POST /sessions/:id/tool-results/:tool_call_id`).
 */
export const pendingApprovalSchema = z.object({
  kind: z.enum(['approval', 'client_tool']),
  tool_call_id: z.string(),
  name: z.string(),
  input: z.unknown(),
  /** The policy that asked. */
  policy: z.string(),
  requested_at: z.string(),
  /** When it is denied if nobody decides (`ZERO_APPROVAL_TTL_MS` after it was asked). */
  expires_at: z.string(),
});

/** A session's run that waits for people: nothing runs until the last of its pending calls is decided. */
export const awaitingApprovalSchema = z.object({ run_id: z.string(), pending: z.array(pendingApprovalSchema) });

/** `POST /sessions/:id/approvals/:tool_call_id`: the decision as recorded, and the calls still waiting (none: the run goes on). */
export const approvalResponseSchema = z.object({
  tool_call_id: z.string(),
  run_id: z.string(),
  decision: z.enum(['allow', 'deny']),
  message: z.string().optional(),
  by: authorSchema.optional(),
  at: z.string(),
  /** With `remember: "session"`: the session override written, and the other waiting calls of the tool it decided too. */
  remembered: z.object({ rule: z.string(), decision: z.enum(['allow', 'deny']), also_decided: z.array(z.string()) }).optional(),
  pending: z.array(z.string()),
});
export type ApprovalResponse = z.infer<typeof approvalResponseSchema>;

/** `POST /sessions/:id/tool-results/:tool_call_id`: the result as recorded (truncated past the run's limit), and the calls still waiting. */
export const toolResultResponseSchema = z.object({
  tool_call_id: z.string(),
  run_id: z.string(),
  is_error: z.boolean(),
  truncated: z.boolean(),
  by: authorSchema.optional(),
  at: z.string(),
  pending: z.array(z.string()),
});

/** A message accepted but not yet answered: it waits for the run before it. */
export const queuedMessageSchema = z.object({ message_id: z.number().int(), run_id: z.string(), author: authorSchema.optional(), text: z.string(), at: z.string() });
export type QueuedMessage = z.infer<typeof queuedMessageSchema>;

/** A file a tool wrote for the session (a report or an artifact). */
export const artifactInfoSchema = z.looseObject({
  path: z.string(),
  project_id: z.string().optional(),
  bytes: z.number().int(),
  run_id: z.string(),
  tool_call_id: z.string(),
  at: z.string(),
});

/** `GET /sessions/:id`: everything a client needs to show a session and follow it from `last_event_id`. */
export const sessionDetailSchema = z.object({
  session: sessionSchema,
  role: roleSchema,
  members: z.array(sessionMemberSchema),
  active_run_id: z.string().nullable(),
  /** Follow `GET /sessions/:id/events` from here: nothing the history lacks is missed. */
  last_event_id: z.string(),
  queued: z.array(queuedMessageSchema),
  /** Set while a run waits for decisions on tool calls; null otherwise. */
  awaiting_approval: awaitingApprovalSchema.nullable(),
  history: z.array(historyRecordSchema),
  /**
   * Each edit or regenerate: the message that made the branch (`seq`), the record it goes on from (`branch_from`)
   * and the records it set aside (read them with `?branches=all`, whose `history` is every branch's records).
   */
  branches: z.array(z.object({ seq: z.number().int(), branch_from: z.number().int(), author: z.object({ id: z.string(), name: z.string().optional() }).optional(), at: z.string(), set_aside: z.array(z.number().int()) })).optional(),
  artifacts: z.array(artifactInfoSchema),
  /** What the session's runs have spent in all, and its budget. */
  spend: sessionSpendSchema.optional(),
  /** The grades of the runs whose message worked toward an outcome (see docs/console.md): present only when there are such runs. */
  outcome_grades: z.array(outcomeGradeSchema).optional(),
});
export type SessionDetail = z.infer<typeof sessionDetailSchema>;

export const switchAgentResponseSchema = z.object({ session: sessionSchema, from: z.string(), to: z.string() });

export const cancelResponseSchema = z.object({ cancelled: z.boolean(), run_id: z.string().optional(), reason: z.string().optional() });

/** How a report was posted to GitHub (a hook's `report: { github }`), as the summary records it. */
export const githubReportSchema = z.object({
  kind: z.enum(['comment', 'check_run']),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  /** The comment's or the check run's id on GitHub. */
  id: z.number().int().optional(),
  /** The comment was Zero's earlier one, edited, rather than a new one. */
  updated: z.boolean().optional(),
  last_status: z.number().int().optional(),
  last_error: z.string().optional(),
  at: z.string().optional(),
});

/** The GitHub side of an investigation a GitHub hook started: the repository, the pull request, and what was hydrated and reported. */
export const githubInvestigationSchema = z.object({
  repo: z.string(),
  /** The pull request (or issue) the event is about. */
  number: z.number().int().optional(),
  /** The commit the files are hydrated at and a check run is posted on. */
  sha: z.string().optional(),
  /** Without a commit in the event (an issue comment), the branch hydrated: the repository's default. */
  ref: z.string().optional(),
  /** `pending` until the worker has hydrated the project, before the run. */
  hydrate: z.enum(['pending', 'done', 'failed']).optional(),
  hydrated: z.object({ sha: z.string(), files: z.number().int(), uploaded: z.number().int(), removed: z.number().int() }).optional(),
  report: githubReportSchema.optional(),
});

/** What became of a webhook-started investigation. */
export const investigationSummarySchema = z.looseObject({
  session_id: z.string(),
  run_id: z.string(),
  origin: z.looseObject({ hook_id: z.string(), source: z.enum(['github', 'generic']), event: z.string(), delivery_id: z.string(), received_at: z.string() }),
  /** `accepted` until the run ends, then the run's status; `awaiting_approval` while it waits for people on `pending`. */
  status: z.union([z.literal('accepted'), z.literal('awaiting_approval'), runStatusSchema]),
  /** The calls the run waits on while `awaiting_approval` (empty once they are decided). */
  pending: z.array(pendingApprovalSchema).optional(),
  project_id: z.string().optional(),
  warnings: z.array(z.string()),
  report: z.looseObject({ path: z.string(), project_id: z.string().optional(), bytes: z.number().int() }).optional(),
  steps: z.number().int().optional(),
  usage: usageSchema.optional(),
  reason: z.string().optional(),
  finished_at: z.string().optional(),
  callback: z.looseObject({ target: z.string(), status: z.enum(['pending', 'delivered', 'failed']), attempts: z.number().int() }).optional(),
  github: githubInvestigationSchema.optional(),
});
export const sessionSummaryResponseSchema = z.object({ summary: investigationSummarySchema });

/** An agent of the catalog with its model and tools as they will be used. */
export const agentInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** The `color` field of its file, for clients that show each agent in its colour. */
  color: z.string().optional(),
  /** The character it speaks as (its file's `persona`). */
  persona: z.string().optional(),
  /** The field it knows (its file's `domain`): clients colour an agent without a `color` by it, so one field shares one colour. */
  domain: z.string().optional(),
  model: z.string(),
  /** Extended thinking for this agent on its model: the budget (with the effort it becomes on a model that thinks adaptively), or why it is off. */
  thinking: z
    .union([z.object({ budget_tokens: z.number().int(), adaptive: z.object({ effort: z.enum(['low', 'medium', 'high']) }).optional() }), z.object({ off: z.string() })])
    .optional(),
  /** The tier its file asks for (`light`, `standard`, `heavy`), whose model `model` is. */
  tier: z.enum(['light', 'standard', 'heavy']).optional(),
  tools: z.array(z.string()),
  /** Tools the file names that Zero does not have, each with the reason. */
  unavailable_tools: z.array(z.object({ name: z.string(), reason: z.string() })),
  delegates_to: z.array(z.string()),
  default_voice: voiceModeSchema,
  /** Claude Code's `permissionMode` of the file. */
  permission_mode: permissionModeSchema,
  /** The file's permission rules (its `permissions:` and `disallowedTools`), Claude Code names mapped to Zero's. */
  permissions: permissionMapSchema,
  /** Each tool Zero executes for it: the decision the deployment's and the file's policies give it (no session overrides). */
  policy: z.record(z.string(), toolPolicySchema),
  /** The MCP tools `tools:` grants, by name or glob (`mcp__github__*`); the servers list them when a run starts. */
  mcp_tools: z.array(z.string()),
  /** The MCP servers it may use (its file's and the deployment's), each with its status when this instance last saw it. */
  mcp_servers: z.array(mcpServerViewSchema),
  warnings: z.array(z.string()),
});
export type AgentInfo = z.infer<typeof agentInfoSchema>;

/** The catalog, and the files that could not be loaded (with the field at fault). */
export const agentListSchema = z.object({
  agents: z.array(agentInfoSchema),
  errors: z.array(z.object({ file: z.string(), field: z.string(), message: z.string() })),
});
export type AgentList = z.infer<typeof agentListSchema>;

export const apiKeyInfoSchema = z.object({
  key_id: z.string(),
  user_id: z.string(),
  name: z.string().optional(),
  label: z.string().optional(),
  created_at: z.string(),
});
/** A new key: the only time the key itself is shown. */
export const createdKeySchema = apiKeyInfoSchema.extend({ key: z.string(), note: z.string() });
export const keyListSchema = z.object({ keys: z.array(apiKeyInfoSchema) });

/** A hook as stored, with the URL deliveries go to. */
export const hookSchema = hookInputSchema.extend({ id: z.string(), created_at: z.string(), updated_at: z.string(), url: z.string() }).loose();
export const hookResponseSchema = z.object({ hook: hookSchema });
export const hookListSchema = z.object({ hooks: z.array(hookSchema) });

/** A schedule as stored, with why it paused itself, the Managed Agents deployment it fires (if any), and its next five times (ISO, UTC). */
export const scheduleSchema = scheduleInputSchema
  .extend({ id: z.string(), paused_reason: z.string().optional(), deployment_id: z.string().optional(), failures: z.number().int(), created_at: z.string(), updated_at: z.string(), next_runs: z.array(z.string()) })
  .loose();
export const scheduleResponseSchema = z.object({ schedule: scheduleSchema });
/** `GET /schedules`: every schedule, by id. */
export const scheduleListSchema = z.object({ schedules: z.array(scheduleSchema) });
/** `POST /schedules/sync`: every stored schedule registered again with what fires it (EventBridge Scheduler on AWS). */
export const scheduleSyncResponseSchema = z.object({
  /** `eventbridge`, or `timer` where the process's own timer reads the schedules (nothing to register). */
  trigger: z.enum(['eventbridge', 'timer']),
  synced: z.array(z.string()),
  failed: z.array(z.object({ schedule_id: z.string(), message: z.string() })),
});

/** A subscription as stored. */
export const subscriptionSchema = subscriptionInputSchema.extend({ id: z.string(), created_at: z.string(), updated_at: z.string() }).loose();
export const subscriptionResponseSchema = z.object({ subscription: subscriptionSchema });
/** `GET /subscriptions`: every subscription, by id. */
export const subscriptionListSchema = z.object({ subscriptions: z.array(subscriptionSchema) });

/** One event on its way to a subscriber, or sent, or given up on: no body, and errors name the target's origin only. */
export const subscriptionDeliverySchema = z.object({
  message_id: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  /** While pending: when the next attempt is due. */
  next_at: z.string().optional(),
  last_status: z.number().int().optional(),
  last_error: z.string().optional(),
});
export const subscriptionDeliveriesSchema = z.object({ deliveries: z.array(subscriptionDeliverySchema) });

/** `POST /webhooks/:hook_id`: the run that answers the delivery, or why none was started. */
export const deliveryResponseSchema = z.union([
  z.object({ session_id: z.string(), run_id: z.string() }),
  z.object({ duplicate: z.literal(true), session_id: z.string(), run_id: z.string() }),
  z.object({ ignored: z.literal(true), event: z.string() }),
]);

export const projectSchema = z.looseObject({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Changes whenever `files/` changes. */
  rev: z.string(),
  description: z.string().optional(),
  last_upload: z.object({ files: z.number().int(), bytes: z.number().int(), at: z.string() }).optional(),
  /** Where the files came from when they were hydrated from GitHub: the repository, the ref asked for and the commit it named. */
  source: z.object({ github: z.string(), ref: z.string(), sha: z.string(), at: z.string() }).optional(),
});
export const projectListSchema = z.object({ projects: z.array(projectSchema.extend({ analyses: z.array(z.string()), role: roleSchema.optional() })) });
export const projectDetailSchema = z.object({ project: projectSchema, analyses: z.array(z.string()), role: roleSchema });
export const archiveUploadSchema = z.object({
  project: projectSchema,
  files: z.number().int(),
  bytes: z.number().int(),
  /** Entries not extracted (links, special files), at most the first few, with the reason; `skipped_count` counts them all. */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  skipped_count: z.number().int(),
  /** Files written (new or changed) and left alone (the same content was already stored). */
  uploaded: z.number().int(),
  unchanged: z.number().int(),
});
/**
 * `POST /projects/:owner/:repo/uploads`: where to send the archive, straight to S3. A form POST (`multipart/form-data`)
 * to `url` with every one of `fields`, then the archive as the `file` field (last), at most `max_bytes`, before `expires_at`.
 */
export const uploadTicketSchema = z.object({
  upload_id: z.string(),
  url: z.string(),
  method: z.literal('POST'),
  fields: z.record(z.string(), z.string()),
  expires_at: z.string(),
  /** Until when `POST …/uploads/:upload_id/complete` takes it. */
  complete_by: z.string(),
  max_bytes: z.number().int(),
});
export type UploadTicket = z.infer<typeof uploadTicketSchema>;
/** `POST /projects/:owner/:repo/hydrate`: the tree at `sha`; `files` written (`uploaded`: new or changed), left alone (`unchanged`: same hash), deleted (`removed`: gone from the tree). */
export const hydrateResponseSchema = archiveUploadSchema.extend({ sha: z.string(), removed: z.number().int() });
export const fileUploadSchema = z.object({ project: projectSchema, path: z.string(), bytes: z.number().int() });
export const projectObjectSchema = z.object({ path: z.string(), size: z.number().int(), etag: z.string() });
export const projectFilesSchema = z.object({ project_id: z.string(), files: z.array(projectObjectSchema) });
export const projectReportsSchema = z.object({ project_id: z.string(), reports: z.array(projectObjectSchema) });
export const analysisStoredSchema = z.object({ project_id: z.string(), scanner: z.string() });
/** An analysis document as it was put: any JSON object or array. */
export const analysisDocumentSchema = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);
export const projectMemberInfoSchema = z.looseObject({ user_id: z.string(), name: z.string().optional(), role: roleSchema, added_at: z.string(), added_by: z.string().optional() });
export const projectMemberResponseSchema = z.object({ project_id: z.string(), member: projectMemberInfoSchema });
export const projectMembersResponseSchema = z.object({ project_id: z.string(), members: z.array(projectMemberInfoSchema) });

/** `GET /me`: who the credentials are, as the console shows it (user id, name, whether an administrator, how signed in). */
export const meResponseSchema = z.object({
  user: z.object({ id: z.string(), name: z.string().optional(), admin: z.boolean(), via: z.enum(['api_key', 'jwt', 'static_key']) }),
});
export type Me = z.infer<typeof meResponseSchema>['user'];
