import * as z from 'zod';

/**
 * The Managed Agents API's answers, written from Anthropic's SDK types
 * (`@anthropic-ai/sdk/resources/beta/{agents,sessions,environments}`): every field
 * the types mark as required, with its type. Answers are parsed against these.
 */
const policy = z.object({ type: z.enum(['always_allow', 'always_ask', 'auto']) });
const urlSourceFilter = z.union([
  z.object({ type: z.enum(['all', 'none']) }),
  z.object({ type: z.enum(['only', 'except']), tools: z.array(z.object({ type: z.literal('tool_reference'), name: z.string() })) }),
]);
/** `BetaManagedAgentsWebFetchURLSources`: required (nullable) on web_fetch's config. */
const urlSources = z.object({ client_tool_results: urlSourceFilter.nullable(), server_tool_results: urlSourceFilter.nullable(), user_input: z.object({ type: z.enum(['all', 'none']) }).nullable() });
/** `BetaManagedAgentsAgentToolConfig`, by tool name. */
const toolConfig = z.discriminatedUnion('name', [
  z.object({ name: z.literal('web_fetch'), type: z.literal('web_fetch'), enabled: z.boolean(), permission_policy: policy, url_sources: urlSources.nullable() }),
  z.object({ name: z.enum(['bash', 'read', 'write', 'edit', 'glob', 'grep', 'web_search']), type: z.string(), enabled: z.boolean(), permission_policy: policy }),
]);
const agentToolset = z.object({ type: z.literal('agent_toolset_20260401'), configs: z.array(toolConfig), default_config: z.object({ enabled: z.boolean(), permission_policy: policy }) });
const customTool = z.object({ type: z.literal('custom'), name: z.string(), description: z.string(), input_schema: z.looseObject({ type: z.literal('object') }) });
const mcpToolset = z.object({ type: z.literal('mcp_toolset'), mcp_server_name: z.string(), configs: z.array(z.unknown()), default_config: z.unknown() });
const modelConfig = z.object({ id: z.string(), effort: z.object({ type: z.string() }).optional(), speed: z.enum(['standard', 'fast']).optional(), inference_geo: z.string().optional() });
/** Why a session or a thread went idle (`BetaManagedAgentsSessionEndTurn`, `…RequiresAction`, `…RetriesExhausted`, …). */
const stopReason = z.discriminatedUnion('type', [
  z.object({ type: z.literal('end_turn') }),
  z.object({ type: z.literal('requires_action'), event_ids: z.array(z.string()) }),
  z.object({ type: z.literal('retries_exhausted') }),
  z.object({ type: z.literal('budget_reached') }),
  z.object({ type: z.literal('refusal') }),
]);

const executionIdentity = z.union([z.object({ type: z.literal('service_account') }), z.object({ type: z.literal('aws_role'), role_arn: z.string() })]);

/** `BetaManagedAgentsAgent`. */
export const agentSchema = z.object({
  id: z.string(),
  type: z.literal('agent'),
  version: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  system: z.string().nullable(),
  model: modelConfig,
  tools: z.array(z.union([agentToolset, mcpToolset, customTool])),
  mcp_servers: z.array(z.object({ name: z.string(), type: z.literal('url'), url: z.string() })),
  skills: z.array(z.object({ skill_id: z.string(), type: z.string(), version: z.string() })),
  metadata: z.record(z.string(), z.string()),
  execution_identity: executionIdentity,
  multiagent: z.unknown().nullable(),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const agentPageSchema = z.object({ data: z.array(agentSchema), next_page: z.string().nullable().optional() });

const packagesSchema = z.object({
  type: z.literal('packages').optional(),
  apt: z.array(z.string()),
  cargo: z.array(z.string()),
  gem: z.array(z.string()),
  go: z.array(z.string()),
  npm: z.array(z.string()),
  pip: z.array(z.string()),
});
const networkingSchema = z.union([
  z.object({ type: z.literal('unrestricted') }),
  z.object({ type: z.literal('limited'), allowed_hosts: z.array(z.string()), allow_mcp_servers: z.boolean(), allow_package_managers: z.boolean() }),
]);

/** `BetaEnvironment`: a `cloud` config (`BetaCloudConfig`) or a `self_hosted` one. */
export const environmentSchema = z.object({
  id: z.string(),
  type: z.literal('environment'),
  name: z.string(),
  description: z.string().nullable(),
  config: z.union([z.object({ type: z.literal('self_hosted') }), z.object({ type: z.literal('cloud'), networking: networkingSchema, packages: packagesSchema })]),
  metadata: z.record(z.string(), z.string()),
  scope: z.enum(['organization', 'account']).optional(),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const environmentPageSchema = z.object({ data: z.array(environmentSchema), next_page: z.string().nullable().optional() });
/** `BetaEnvironmentDeleteResponse`. */
export const deletedEnvironmentSchema = z.object({ id: z.string(), type: z.literal('environment_deleted') });

const workStateSchema = z.enum(['queued', 'starting', 'active', 'stopping', 'stopped']);
/** `BetaSelfHostedWork`. */
export const workSchema = z.object({
  id: z.string(),
  type: z.literal('work'),
  acknowledged_at: z.string().nullable(),
  created_at: z.string(),
  data: z.union([z.object({ type: z.literal('session'), id: z.string() }), z.object({ type: z.literal('healthcheck').optional(), id: z.string() })]),
  environment_id: z.string(),
  latest_heartbeat_at: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  secret: z.string().nullable(),
  started_at: z.string().nullable(),
  state: workStateSchema,
  stop_requested_at: z.string().nullable(),
  stopped_at: z.string().nullable(),
});
export const workPageSchema = z.object({ data: z.array(workSchema), next_page: z.string().nullable() });
/** `BetaSelfHostedWorkHeartbeatResponse`. */
export const heartbeatSchema = z.object({ type: z.literal('work_heartbeat'), last_heartbeat: z.string(), lease_extended: z.boolean(), state: workStateSchema, ttl_seconds: z.number() });
/** `BetaSelfHostedWorkQueueStats`. */
export const workStatsSchema = z.object({ type: z.literal('work_queue_stats'), depth: z.number(), pending: z.number(), oldest_queued_at: z.string().nullable(), workers_polling: z.number().nullable() });
/** `BetaWorkLeaseState`, as a refused heartbeat carries it. */
export const leaseStateSchema = z.object({ last_heartbeat: z.string().nullable(), lease_extended: z.literal(false), state: workStateSchema, ttl_seconds: z.number() });

/** `BetaManagedAgentsSession`. */
export const sessionSchema = z.object({
  id: z.string(),
  type: z.literal('session'),
  agent: agentSchema.omit({ archived_at: true, created_at: true, updated_at: true, metadata: true }),
  archived_at: z.string().nullable(),
  budget: z.unknown().nullable(),
  created_at: z.string(),
  environment_id: z.string(),
  metadata: z.record(z.string(), z.string()),
  outcome_evaluations: z.array(z.unknown()),
  resources: z.array(z.unknown()),
  stats: z.object({ active_seconds: z.number().optional(), duration_seconds: z.number().optional() }),
  status: z.enum(['rescheduling', 'running', 'idle', 'terminated']),
  title: z.string().nullable(),
  updated_at: z.string(),
  usage: z.strictObject({
    active_seconds: z.number().optional(),
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    cache_read_input_tokens: z.number().optional(),
    cache_creation: z.strictObject({ ephemeral_5m_input_tokens: z.number().optional(), ephemeral_1h_input_tokens: z.number().optional() }).optional(),
    list_cost: z.strictObject({ amount: z.string().regex(/^(0|[1-9]\d*)$/), currency: z.literal('USD') }).nullable().optional(),
    server_tool_use: z.object({ web_fetch_requests: z.number().optional(), web_search_requests: z.number().optional() }).nullable().optional(),
  }),
  vault_ids: z.array(z.string()),
});

export const sessionPageSchema = z.object({ data: z.array(sessionSchema), next_page: z.string().nullable().optional(), prev_page: z.string().nullable().optional() });
export const deletedSessionSchema = z.object({ id: z.string(), type: z.literal('session_deleted') });

const textBlock = z.object({ type: z.literal('text'), text: z.string() });
const at = { id: z.string(), processed_at: z.string() };
const mediaSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.object({ type: z.literal('url'), url: z.string() }),
  z.object({ type: z.literal('file'), file_id: z.string() }),
  z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
]);
/** `BetaManagedAgentsImageBlock` and `BetaManagedAgentsDocumentBlock`. */
const imageBlock = z.object({ type: z.literal('image'), source: mediaSource });
const documentBlock = z.object({ type: z.literal('document'), source: mediaSource, title: z.string().nullish(), context: z.string().nullish() });

/** The events Zero sends, each as `BetaManagedAgentsSessionEvent` types it. */
export const sessionEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user.message'), id: z.string(), content: z.array(z.discriminatedUnion('type', [textBlock, imageBlock, documentBlock])), processed_at: z.string().nullish() }),
  z.object({ type: z.literal('user.interrupt'), id: z.string(), processed_at: z.string().nullish() }),
  z.object({ type: z.literal('user.tool_confirmation'), id: z.string(), tool_use_id: z.string(), result: z.enum(['allow', 'deny']), deny_message: z.string().nullish(), processed_at: z.string().nullish() }),
  z.object({ type: z.literal('user.custom_tool_result'), id: z.string(), custom_tool_use_id: z.string(), content: z.array(textBlock).optional(), is_error: z.boolean().nullish(), processed_at: z.string().nullish() }),
  z.object({ type: z.literal('user.tool_result'), id: z.string(), tool_use_id: z.string(), content: z.array(textBlock).optional(), is_error: z.boolean().nullish(), processed_at: z.string().nullish() }),
  z.object({ type: z.literal('agent.message'), ...at, content: z.array(textBlock) }),
  z.object({ type: z.literal('agent.thinking'), ...at }),
  z.object({ type: z.literal('agent.tool_use'), ...at, name: z.string(), input: z.record(z.string(), z.unknown()), evaluated_permission: z.enum(['allow', 'ask', 'deny']).optional() }),
  z.object({ type: z.literal('agent.custom_tool_use'), ...at, name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('agent.tool_result'), ...at, tool_use_id: z.string(), content: z.array(textBlock).optional(), is_error: z.boolean().nullish() }),
  z.object({ type: z.literal('agent.thread_context_compacted'), ...at }),
  z.object({ type: z.literal('session.error'), ...at, error: z.object({ type: z.string(), message: z.string(), retry_status: z.object({ type: z.enum(['retrying', 'exhausted', 'terminal']) }) }) }),
  z.object({ type: z.literal('session.status_running'), ...at }),
  z.object({ type: z.literal('session.status_rescheduled'), ...at }),
  z.object({ type: z.literal('session.status_terminated'), ...at }),
  z.object({
    type: z.literal('session.status_idle'),
    ...at,
    stop_details: z.unknown().nullable(),
    stop_reason: stopReason,
  }),
  z.object({ type: z.literal('span.model_request_start'), ...at }),
  /** `BetaManagedAgentsSessionUsageEvent` (its `usage`: `BetaManagedAgentsSessionUsageSnapshot`). */
  z.object({
    type: z.literal('session.usage'),
    ...at,
    usage: z.strictObject({
      active_seconds: z.number().optional(),
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_read_input_tokens: z.number().optional(),
      cache_creation: z.strictObject({ ephemeral_5m_input_tokens: z.number().optional(), ephemeral_1h_input_tokens: z.number().optional() }).optional(),
      list_cost: z.strictObject({ amount: z.string().regex(/^(0|[1-9]\d*)$/), currency: z.literal('USD') }).optional(),
      server_tool_use: z.object({ web_fetch_requests: z.number().optional(), web_search_requests: z.number().optional() }).optional(),
    }),
    budget: z.unknown().nullish(),
  }),
  /** The thread events (`BetaManagedAgentsSessionThreadCreatedEvent`, `…AgentThreadMessage{Sent,Received}Event`, `…SessionThreadStatus{Running,Idle}Event`). */
  z.object({ type: z.literal('session.thread_created'), ...at, agent_name: z.string(), session_thread_id: z.string(), workflow_run_id: z.string().nullable() }),
  z.object({ type: z.literal('agent.thread_message_sent'), ...at, content: z.array(textBlock), to_session_thread_id: z.string(), to_agent_name: z.string().nullish() }),
  z.object({ type: z.literal('agent.thread_message_received'), ...at, content: z.array(textBlock), from_session_thread_id: z.string(), from_agent_name: z.string().nullish() }),
  z.object({ type: z.literal('session.thread_status_running'), ...at, agent_name: z.string(), session_thread_id: z.string() }),
  z.object({
    type: z.literal('session.thread_status_idle'),
    ...at,
    agent_name: z.string(),
    session_thread_id: z.string(),
    stop_details: z.unknown().nullable(),
    stop_reason: stopReason,
  }),
  z.object({
    type: z.literal('span.model_request_end'),
    ...at,
    is_error: z.boolean().nullable(),
    model_request_start_id: z.string(),
    model_usage: z.object({ input_tokens: z.number(), output_tokens: z.number(), cache_read_input_tokens: z.number(), cache_creation_input_tokens: z.number() }),
  }),
]);
export type SessionEvent = z.infer<typeof sessionEventSchema>;

export const eventPageSchema = z.object({ data: z.array(sessionEventSchema), next_page: z.string().nullable().optional() });
export const sentEventsSchema = z.object({ data: z.array(sessionEventSchema).optional() });

/** The API's error body. */
export const apiErrorSchema = z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) });

/** Parses an answer with the schema written from the SDK's types: a missing required field fails the test. */
export function valid<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`answer does not match the SDK's types: ${parsed.error.message}\n${JSON.stringify(value)}`);
  return parsed.data;
}
