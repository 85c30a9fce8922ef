import { DirAgentCatalog, S3AgentCatalog, type AgentCatalog } from '@zero/agent/definitions/catalog';
import { EnvironmentStore } from '@zero/runtime/environments/environment-store';
import { queueEnvironmentCalls } from '@zero/integrations/environment-store/self-hosted';
import { withdrawEnvironmentCalls } from '@zero/runtime/sessions/session-environment';
import { WorkQueue } from '@zero/runtime/environments/work-queue';
import { DEFAULT_MODEL, tiersFromEnv, type ModelTiers } from '@zero/agent/model/aliases';
import { complexityRulesFromEnv, type ComplexityRule } from '@zero/agent/model/complexity-routing';
import { agentModel } from '@zero/agent/loop/run-setup';
import type { ModelProvider } from '@zero/agent/model/provider';
import { lazyProvider } from '@zero/agent/model/lazy-provider';
import { providersConfigFromEnv, type ProvidersConfig } from '@zero/agent/model/providers-config';
import type { AgentCheck } from '@zero/agent/definitions/catalog';
import { DEFAULT_LIMITS, limitsFromEnv, type RunLimits } from '@zero/agent/loop/limits';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { createDynamoClient, createS3Client, type StoreConfig } from '@zero/runtime/store/clients';
import { SessionStore } from '@zero/runtime/store/session-store';
import { LeaseStore } from '@zero/runtime/store/lease-store';
import { StreamSlots } from '@zero/runtime/store/stream-slots';
import { SessionWatchers } from '@zero/runtime/store/session-watchers';
import { budgetLimitsFromEnv, loadBudgets, type BudgetLimits } from '@zero/runtime/budgets/limits';
import { addLogSecrets } from '@zero/agent/log/log';
import { loadRateLimiter, rateLimitsFromEnv, type RateLimits } from '@zero/runtime/rate-limits/limits';
import { LocalRuns } from '@zero/runtime/sessions/run-registry';
import { randomUUID } from 'node:crypto';
import { InProcessQueue, type RunQueue } from '@zero/runtime/sessions/queue';
import { runJob } from '@zero/runtime/sessions/worker-job';
import { Authenticator, type AuthConfig } from '@zero/runtime/auth/authenticator';
import { ProjectFileCache, type FileCacheOptions } from '@zero/runtime/projects/file-cache';
import { ProjectAccess } from '@zero/runtime/projects/project-access';
import { ProjectStore } from '@zero/runtime/projects/project-store';
import { ProjectMemberStore } from '@zero/runtime/store/project-member-store';
import { ReportOwnerStore } from '@zero/runtime/store/report-owner-store';
import { DEFAULT_MEMORY_LIMITS, MemoryStore, type MemoryLimits } from '@zero/runtime/memory/memory-store';
import { DreamStore } from '@zero/runtime/memory/dream-store';
import { MemoryLocks } from '@zero/runtime/memory/memory-lock';
import type { VaultStore } from '@zero/runtime/vaults/vault-store';
import { StoredWebFetchCache } from '@zero/runtime/tools/web-fetch-cache';
import { commandOptionsFromEnv, type CommandOptions } from '@zero/runtime/tools/command/command-policy';
import type { OutboundOptions } from '@zero/agent/net/outbound';
import { outboundAllowFromEnv } from '@zero/agent/net/outbound-allow';
import { McpClients } from '@zero/integrations/mcp/clients';
import { McpServerStore } from '@zero/integrations/mcp/server-store';
import type { McpSecretResolver } from '@zero/integrations/mcp/secrets';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { builtinTools } from '@zero/runtime/tools/builtins';
import { permissionsFromEnv, type DeploymentPermissions } from '@zero/agent/tools/policy';
import type { ToolSpec } from '@zero/runtime/tools/tool';
import type { GitHubOptions } from '@zero/integrations/github/client';
import type { GitHubSettings } from '@zero/integrations/github/settings';
import type { SubscriptionSettings } from '@zero/integrations/subscriptions/publish';
import type { CallbackOptions } from '@zero/integrations/webhooks/callback';
import { HookStore } from '@zero/integrations/webhooks/hook-config';
import { ScheduleStore } from '@zero/integrations/schedules/schedule-config';
import { ScheduleMarkers, type Schedules } from '@zero/integrations/schedules/fire';
import { EventBridgeScheduleTrigger, type EventBridgeSchedulerConfig } from '@zero/integrations/schedules/eventbridge';
import { WebhookStore } from '@zero/integrations/webhooks/webhook-store';
import { OutboxStore } from '@zero/integrations/subscriptions/outbox-store';
import type { SecretResolver, Webhooks } from '@zero/integrations/webhooks/webhooks';

export interface RuntimeConfig {
  store: StoreConfig;
  anthropic: { apiKey?: string; baseURL?: string; maxRetries?: number };
  defaultModel?: string;
  /** Bedrock, OpenAI-compatible endpoints, the default provider and the fallback chain (`ZERO_PROVIDER_*`, `ZERO_MODEL_*`, `ZERO_BEDROCK_*`). */
  providers?: ProvidersConfig;
  /** The deployment's model of each tier (`ZERO_MODEL_TIERS`). */
  tiers?: ModelTiers;
  defaultAgentId?: string;
  limits?: RunLimits;
  /** Agent definitions: the bucket's `agents/` prefix (default) or a directory. */
  agentsDir?: string;
  catalogRevalidateMs?: number;
  /** Replaces the model provider (tests of other providers). */
  provider?: ModelProvider;
  /** Extra tools beside the built-in ones; one with a built-in's name replaces it. */
  tools?: ToolSpec<any>[];
  /** The deployment's permission defaults (`ZERO_PERMISSIONS`). */
  permissions?: DeploymentPermissions;
  /** How web_fetch, webhook callbacks and MCP servers are reached: `allow` is `ZERO_OUTBOUND_ALLOW` (tests inject a stub resolver). */
  outbound?: OutboundOptions;
  /** MCP servers: time limits, and where `${ZERO_MCP_SECRET_*}` references are looked up (by default the environment). */
  mcp?: { connectTimeoutMs?: number; toolsTtlMs?: number; secret?: McpSecretResolver };
  /** run_command's mode, allowlist additions and timeout (`ZERO_COMMAND_*`). */
  commands?: CommandOptions;
  /** Where and how project trees are cached for grep and glob. */
  projectCache?: FileCacheOptions;
  /** How long a run's lease lasts without a heartbeat (a dead holder blocks the session this long). */
  leaseTtlMs?: number;
  /** Text events reach the event log at least this often. */
  eventFlushMs?: number;
  auth?: AuthConfig;
  /** Live-view streams one user may have open at once, across instances. */
  maxStreamsPerUser?: number;
  /** Live-view streams open on one session at once, all members together (`ZERO_MAX_STREAMS_PER_SESSION`). */
  maxStreamsPerSession?: number;
  /** Where background runs go: SQS in AWS; by default an in-process queue. */
  queue?: RunQueue;
  /** Time a step may need; a run hands over when less than this is left of its process's time. */
  handoverReserveMs?: number;
  /** A time budget per invocation where the platform gives none (the local server, tests). */
  runBudgetMs?: number;
  /** How long a call waits for a person's decision before it is denied (`ZERO_APPROVAL_TTL_MS`). */
  approvalTtlMs?: number;
  /** Viewers of a session do not see the model's thinking (`ZERO_HIDE_THINKING_FROM_VIEWERS`); editors and owners do. */
  hideThinkingFromViewers?: boolean;
  /** A new session is titled by the light tier after its first exchange (`ZERO_SESSION_TITLES`, `off` turns it off); absent: on. */
  sessionTitles?: boolean;
  /** Resolves a hook's `secret_ref` (by default: the environment variable of that name). */
  webhookSecret?: SecretResolver;
  /** Retries and time limit of webhook callbacks; they go through `outbound` like web_fetch. */
  webhookCallback?: Omit<CallbackOptions, keyof OutboundOptions>;
  /** GitHub's API (`ZERO_GITHUB_API_URL`) and retries; requests go through `outbound` like web_fetch. */
  github?: Omit<GitHubOptions, keyof OutboundOptions>;
  /** Resolves a GitHub token reference (by default: the environment variable of that name). */
  githubToken?: (ref: string) => string | undefined;
  /** EventBridge Scheduler (AWS): each schedule is registered there and fires through the run queue. Unset, schedules fire from the local timer. */
  scheduler?: EventBridgeSchedulerConfig;
  /** `ZERO_PUBLIC_URL`: the console's address, for links in reports posted elsewhere. */
  publicUrl?: string;
  /** How long an instance keeps the list of subscriptions (default 10 s). */
  subscriptionCacheMs?: number;
  /** Caps of a memory store (`ZERO_MEMORY_MAX_FILE_BYTES`, `_STORE_BYTES`, `_FILES`); see DEFAULT_MEMORY_LIMITS. */
  memory?: Partial<MemoryLimits>;
  /** Session, user and deployment budgets (`ZERO_BUDGET_*`); `false`: nothing is counted or checked (the benchmark's baseline). */
  budgets?: BudgetLimits | false;
  /** Requests per minute of a credential, messages per minute to a session, deliveries per minute to a webhook (`ZERO_RATE_LIMIT_*`); none by default. */
  rateLimits?: RateLimits;
  /** The operator's complexity rules for tier routing (`ZERO_COMPLEXITY_RULES`); see model/complexity-routing.ts. */
  complexityRules?: ComplexityRule[];
  /** Seconds web_fetch serves a result from the store's cache (`ZERO_WEB_CACHE_TTL_S`, default 300); 0: no cache. */
  webCacheTtlS?: number;
  /**
   * The key vault credentials are sealed with: a KMS key (`ZERO_VAULT_KMS_KEY`, on AWS) or a key file
   * (`ZERO_VAULT_KEY_FILE`; `npm start` keeps one in its data folder). Neither: vaults hold no credentials.
   */
  vaultKey?: { kmsKeyId: string; kmsEndpoint?: string } | { file: string };
}

/** Everything the HTTP edge needs. */
export interface Runtime extends ChatDeps {
  auth: Authenticator;
  /** Places of the live-view streams open per user. */
  streams: StreamSlots;
  /** Who has a live view open on each session. */
  watchers: SessionWatchers;
  webhooks: Webhooks;
  /** Cron-timed runs: the schedules in the bucket, their fire markers in the table, their EventBridge Scheduler registrations on AWS. */
  schedules: Schedules;
  /** How GitHub is reached, for hydrating projects and reporting on pull requests. */
  github: GitHubSettings;
  /** Signed outbound events: where subscriptions live, their secrets, how deliveries go out. */
  subscriptions: SubscriptionSettings;
  /** The MCP servers agents use, as this instance knows them. */
  mcp: McpClients;
  /** Environments as resources (`/api/v2/environments`, `/v1/environments`). */
  environments: EnvironmentStore;
  /** Self-hosted environments' queues of tool calls (`/v1/environments/:id/work`). */
  work: WorkQueue;
  /**
   * Users' vaults of write-only credentials (`/v1/vaults`), used by http_request for the sessions they
   * are given to: the store and its sealer are loaded with the first call, not at cold start.
   */
  vaults: () => Promise<VaultStore>;
  /** How the deployment reaches other servers (a vault credential's MCP server and token endpoint, when validated). */
  outbound: OutboundOptions;
  /** Users' dreams (`/v1/dreams`): consolidations of a memory store, run by the worker. */
  dreams: DreamStore;
}

/** The built-in tools every deployment registers (listed beside the registry, in the runtime). */
export { builtinTools };

// Webhook investigations are finished when a run ends and settled after a background job: loaded
// then, so that a cold start serving a member's request does not evaluate them.
const investigations = () => import('@zero/integrations/webhooks/finish');
// Subscribers are told and investigations finished when a run ends: loaded then, as above.
const afterRun = () => import('@zero/integrations/subscriptions/after-run');

/** Wires stores, catalog, provider and tools from configuration; used by Lambda, the local server and the tests alike. */
export function createRuntime(config: RuntimeConfig): Runtime {
  const db = createDynamoClient(config.store);
  const s3 = createS3Client(config.store);
  const artifacts = new ArtifactStore(s3, config.store.bucket);
  const projects = new ProjectStore(artifacts);
  const extra = config.tools ?? [];
  const replaced = new Set(extra.map((t) => t.name));
  const tools = new ToolRegistry([...builtinTools({ outbound: config.outbound, commands: config.commands }).filter((t) => !replaced.has(t.name)), ...extra], { permissions: config.permissions });
  const defaultModel = config.defaultModel ?? DEFAULT_MODEL;
  // The providers' code loads with the first model call or catalog load, not with the cold start.
  const router = config.provider ? undefined : import('@zero/agent/model/providers').then((m) => m.createProviderRouter(config.anthropic, config.providers));
  router?.catch(() => undefined);
  // An agent whose model cannot serve it here fails to load (listed with the reason), not at its first call.
  const check: AgentCheck | undefined =
    router && (async (agent) => (await router).problemWith(agentModel(agent, defaultModel, config.tiers), agent.fallback));
  const catalog: AgentCatalog = config.agentsDir
    ? new DirAgentCatalog(config.agentsDir, { knownTools: tools.names(), check })
    : new S3AgentCatalog(s3, config.store.bucket, {
        revalidateMs: config.catalogRevalidateMs,
        knownTools: tools.names(),
        check,
        // The agents made through the Managed Agents API (`agents/managed/`), loaded with the first reread.
        extend: async (files) => (await import('@zero/integrations/managed/merge')).withManagedAgents(files, s3, config.store.bucket),
      });
  const sessions = new SessionStore(db, config.store.table, artifacts);
  const auth = new Authenticator(sessions, config.auth ?? {});
  // Locally (and in tests) background runs go to an in-process queue that drives the session here,
  // then finishes a webhook investigation whose ending a dead process left unhandled.
  const queue =
    config.queue ??
    new InProcessQueue((job) =>
      runJob(runtime, job, {
        beforeDrive: async (job) => (job.reason === 'webhook' ? (await import('@zero/integrations/webhooks/prepare')).prepareInvestigation(runtime, job.session_id) : undefined),
        afterDrive: async (sessionId) => (await investigations()).settleInvestigation(runtime, sessionId),
      }),
      // A dream's job, as the worker runs it on AWS (functions/worker.ts).
      { onMessage: async (message) => (await import('@zero/runtime/memory/dreams')).runDreamMessage(runtime, message) },
    );
  const rateLimits = loadRateLimiter(db, config.store.table, config.rateLimits);
  let vaults: Promise<VaultStore> | undefined;
  const runtime: Runtime = {
    auth,
    environments: new EnvironmentStore(db, config.store.table),
    work: new WorkQueue(db, config.store.table),
    streams: new StreamSlots(db, config.store.table, config.maxStreamsPerUser, config.maxStreamsPerSession),
    watchers: new SessionWatchers(db, config.store.table),
    queue,
    handoverReserveMs: config.handoverReserveMs ?? 60_000,
    runBudgetMs: config.runBudgetMs,
    approvalTtlMs: config.approvalTtlMs,
    hideThinkingFromViewers: config.hideThinkingFromViewers ?? false,
    sessionTitles: config.sessionTitles ?? true,
    provider: config.provider ?? lazyProvider(() => router!),
    tools,
    catalog,
    sessions,
    mcp: new McpClients(new McpServerStore(artifacts), {
      outbound: config.outbound ?? {},
      resolveSecret: config.mcp?.secret ?? ((name) => process.env[name] || undefined),
      connectTimeoutMs: config.mcp?.connectTimeoutMs ?? 10_000,
      toolsTtlMs: config.mcp?.toolsTtlMs ?? 5 * 60_000,
      // Lambda cannot start processes: a stdio server is refused there, with the reason.
      canSpawn: !process.env.AWS_LAMBDA_FUNCTION_NAME,
      // A session's vault credential bound to a server's URL authorizes it (read when a run lists the server's tools).
      bearerFor: async (sessionId, url) => {
        const { sessionMcpBearer } = await import('@zero/runtime/vaults/session-mcp-bearer');
        return sessionMcpBearer({ artifacts, vaults: () => (vaults ??= vaultStore(artifacts, config.vaultKey, s3)) }, sessionId, url);
      },
    }),
    budgets: config.budgets === false ? undefined : loadBudgets(db, config.store.table, config.budgets ?? {}),
    rateLimits,
    webFetch: new StoredWebFetchCache(db, config.store.table, config.webCacheTtlS ?? 300, rateLimits),
    leases: new LeaseStore(db, config.store.table, sessions, config.leaseTtlMs ?? 30_000),
    runs: new LocalRuns(),
    instanceId: `${process.env.AWS_LAMBDA_LOG_STREAM_NAME ?? 'local'}:${randomUUID()}`,
    eventFlushMs: config.eventFlushMs ?? 250,
    artifacts,
    projects,
    projectFiles: new ProjectFileCache(projects, config.projectCache),
    memory: new MemoryStore(artifacts, new MemoryLocks(db, config.store.table), memoryLimits(config.memory)),
    vaults: () => (vaults ??= vaultStore(artifacts, config.vaultKey, s3)),
    outbound: config.outbound ?? {},
    dreams: new DreamStore(db, config.store.table),
    projectAccess: new ProjectAccess(
      new ProjectMemberStore(db, config.store.table),
      new ReportOwnerStore(db, config.store.table),
      sessions,
      projects,
      (userId) => auth.isAdmin(userId),
    ),
    limits: config.limits ?? DEFAULT_LIMITS,
    ...(config.providers ? { providers: config.providers } : {}),
    secrets: [
      config.anthropic.apiKey ?? '',
      config.providers?.copilot?.githubToken ?? '',
      ...Object.values(config.providers?.endpoints ?? {}).map((endpoint) => endpoint.key ?? ''),
    ].filter(Boolean),
    defaultAgentId: config.defaultAgentId ?? 'zero',
    defaultModel,
    tiers: config.tiers ?? {},
    complexityRules: config.complexityRules ?? [],
    webhooks: {
      hooks: new HookStore(artifacts),
      store: new WebhookStore(db, config.store.table),
      secret: config.webhookSecret ?? ((ref) => process.env[ref] || undefined),
      callback: { ...config.outbound, ...config.webhookCallback },
    },
    schedules: {
      store: new ScheduleStore(artifacts),
      markers: new ScheduleMarkers(db, config.store.table),
      ...(config.scheduler ? { trigger: new EventBridgeScheduleTrigger(config.scheduler) } : {}),
    },
    github: {
      options: { ...config.outbound, ...config.github },
      token: config.githubToken ?? ((ref) => process.env[ref] || undefined),
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    },
    subscriptions: {
      artifacts,
      outbox: new OutboxStore(db, config.store.table),
      secret: config.webhookSecret ?? ((ref) => process.env[ref] || undefined),
      delivery: { ...config.outbound, ...config.webhookCallback },
      cacheMs: config.subscriptionCacheMs,
    },
    onRunEnding: async (ending) => (await afterRun()).runEnding(runtime, ending),
    onRunFinished: async (finished) => {
      await withdrawEnvironmentCalls(runtime, finished);
      await (await afterRun()).runFinished(runtime, finished);
    },
    onRunWaiting: async (waiting) => {
      await queueEnvironmentCalls(runtime, waiting);
      await (await afterRun()).runWaiting(runtime, waiting);
    },
    onSessionCreated: async (session) => (await afterRun()).sessionCreated(runtime, session),
    // A session's repository resources, fetched with the deployment's GitHub settings into a run's working copy.
    mountRepositories: async (dir, resources) => (await import('@zero/integrations/github/mount-resources')).mountResources(dir, resources, runtime.github),
  };
  // No log line may carry the model or provider keys, even inside an error's message.
  addLogSecrets(runtime.secrets ?? []);
  return runtime;
}

/** Reads the runtime's settings from environment variables (documented in docs/configuration.md). */
export function runtimeConfigFromEnv(env: Record<string, string | undefined>, store: StoreConfig): RuntimeConfig {
  return {
    store,
    anthropic: { apiKey: env.ANTHROPIC_API_KEY || undefined, baseURL: env.ANTHROPIC_BASE_URL || undefined },
    defaultModel: env.ZERO_MODEL || undefined,
    // A malformed provider setting stops the server at start, naming the variable.
    providers: providersConfigFromEnv(env),
    tiers: tiersFromEnv(env.ZERO_MODEL_TIERS),
    complexityRules: complexityRulesFromEnv(env.ZERO_COMPLEXITY_RULES),
    defaultAgentId: env.ZERO_DEFAULT_AGENT || undefined,
    limits: limitsFromEnv(env),
    permissions: permissionsFromEnv(env.ZERO_PERMISSIONS),
    outbound: { allow: outboundAllowFromEnv(env.ZERO_OUTBOUND_ALLOW) },
    mcp: {
      connectTimeoutMs: positiveInt(env, 'ZERO_MCP_CONNECT_TIMEOUT_MS'),
      toolsTtlMs: positiveInt(env, 'ZERO_MCP_TOOLS_TTL_MS'),
      secret: (name) => env[name] || undefined,
    },
    commands: commandOptionsFromEnv(env),
    runBudgetMs: positiveInt(env, 'ZERO_RUN_BUDGET_MS'),
    approvalTtlMs: positiveInt(env, 'ZERO_APPROVAL_TTL_MS'),
    hideThinkingFromViewers: env.ZERO_HIDE_THINKING_FROM_VIEWERS === '1' || env.ZERO_HIDE_THINKING_FROM_VIEWERS === 'true',
    sessionTitles: env.ZERO_SESSION_TITLES !== 'off',
    handoverReserveMs: positiveInt(env, 'ZERO_HANDOVER_RESERVE_MS'),
    webhookSecret: (ref) => env[ref] || undefined,
    github: env.ZERO_GITHUB_API_URL ? { apiUrl: env.ZERO_GITHUB_API_URL } : undefined,
    githubToken: (ref) => env[ref] || undefined,
    publicUrl: env.ZERO_PUBLIC_URL || undefined,
    scheduler: schedulerFromEnv(env),
    auth: {
      admins: (env.ZERO_ADMINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      staticKeys: env.ZERO_ADMIN_KEY ? [{ key: env.ZERO_ADMIN_KEY, user: { id: 'admin', name: 'Administrator' } }] : [],
      jwt: env.ZERO_JWT_SECRET || env.ZERO_JWKS_URL
        ? {
            secret: env.ZERO_JWT_SECRET || undefined,
            jwksUrl: env.ZERO_JWKS_URL || undefined,
            issuer: env.ZERO_JWT_ISSUER || undefined,
            audience: env.ZERO_JWT_AUDIENCE || undefined,
            maxLifetimeS: positiveInt(env, 'ZERO_JWT_MAX_LIFETIME_S', 'seconds'),
          }
        : undefined,
    },
    maxStreamsPerUser: positiveInt(env, 'ZERO_MAX_STREAMS_PER_USER', 'streams'),
    maxStreamsPerSession: positiveInt(env, 'ZERO_MAX_STREAMS_PER_SESSION', 'streams'),
    budgets: budgetLimitsFromEnv(env),
    rateLimits: rateLimitsFromEnv(env),
    webCacheTtlS: nonNegativeInt(env, 'ZERO_WEB_CACHE_TTL_S'),
    vaultKey: env.ZERO_VAULT_KMS_KEY
      ? { kmsKeyId: env.ZERO_VAULT_KMS_KEY, ...(env.ZERO_VAULT_KMS_ENDPOINT ? { kmsEndpoint: env.ZERO_VAULT_KMS_ENDPOINT } : {}) }
      : env.ZERO_VAULT_KEY_FILE
        ? { file: env.ZERO_VAULT_KEY_FILE }
        : undefined,
    memory: {
      maxFileBytes: positiveInt(env, 'ZERO_MEMORY_MAX_FILE_BYTES', 'bytes'),
      maxStoreBytes: positiveInt(env, 'ZERO_MEMORY_MAX_STORE_BYTES', 'bytes'),
      maxFiles: positiveInt(env, 'ZERO_MEMORY_MAX_FILES', 'files'),
    },
  };
}

/**
 * EventBridge Scheduler from `ZERO_SCHEDULE_GROUP`, `ZERO_SCHEDULER_ROLE_ARN` and `ZERO_RUN_QUEUE_ARN`
 * (SST links them on AWS), all three or none; `ZERO_SCHEDULER_ENDPOINT` points at a compatible server.
 */
function schedulerFromEnv(env: Record<string, string | undefined>): EventBridgeSchedulerConfig | undefined {
  const names = ['ZERO_SCHEDULE_GROUP', 'ZERO_SCHEDULER_ROLE_ARN', 'ZERO_RUN_QUEUE_ARN'] as const;
  const set = names.filter((name) => env[name]);
  if (set.length === 0) return undefined;
  if (set.length < names.length) throw new Error(`${names.filter((name) => !env[name]).join(' and ')} must be set with ${set.join(' and ')} (EventBridge Scheduler)`);
  return {
    group: env.ZERO_SCHEDULE_GROUP!,
    roleArn: env.ZERO_SCHEDULER_ROLE_ARN!,
    queueArn: env.ZERO_RUN_QUEUE_ARN!,
    endpoint: env.ZERO_SCHEDULER_ENDPOINT || undefined,
    region: env.AWS_REGION || undefined,
  };
}

/**
 * The vault store, its code imported now (with the first use of a vault): its secrets sealed with KMS
 * with the deployment's own AWS credentials and region (the S3 client's), or with the key file; without
 * a key, vaults hold no credentials.
 */
async function vaultStore(artifacts: ArtifactStore, key: RuntimeConfig['vaultKey'], s3: ReturnType<typeof createS3Client>): Promise<VaultStore> {
  const [{ VaultStore }, { LocalKeyWrapper, Sealer }] = await Promise.all([import('@zero/runtime/vaults/vault-store'), import('@zero/runtime/vaults/sealer')]);
  if (!key) return new VaultStore(artifacts, undefined);
  if ('file' in key) return new VaultStore(artifacts, new Sealer(new LocalKeyWrapper(key.file)));
  const { KmsKeyWrapper } = await import('@zero/runtime/vaults/kms');
  const wrapper = new KmsKeyWrapper({
    keyId: key.kmsKeyId,
    ...(key.kmsEndpoint ? { endpoint: key.kmsEndpoint } : {}),
    region: () => s3.config.region(),
    credentials: () => s3.config.credentials(),
  });
  return new VaultStore(artifacts, new Sealer(wrapper));
}

/** The memory caps: the defaults, with what the configuration sets. */
function memoryLimits(set: Partial<MemoryLimits> = {}): MemoryLimits {
  const given = Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_MEMORY_LIMITS, ...given };
}

function nonNegativeInt(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of seconds (0: off), got "${raw}"`);
  return value;
}

function positiveInt(env: Record<string, string | undefined>, name: string, unit = 'milliseconds'): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer (${unit}), got "${raw}"`);
  return value;
}
