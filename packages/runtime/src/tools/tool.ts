import type { PermissionMap } from '@zero/agent/wire';
import type { WebFetchCache } from './web-fetch-cache';
import * as z from 'zod';
import type { AgentCatalog } from '@zero/agent/definitions/catalog';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { ProjectAccess } from '../projects/project-access';
import type { ProjectFileCache } from '../projects/file-cache';
import type { ProjectStore } from '../projects/project-store';
import type { Usage } from '@zero/agent/wire';
import type { ArtifactStore } from '../store/artifact-store';
import type { SessionStore } from '../store/session-store';
import type { MemoryStore } from '../memory/memory-store';
import type { EnvironmentStore } from '../environments/environment-store';
import type { GitHubRepositoryResource } from '../sessions/session-record';
import type { VaultStore } from '../vaults/vault-store';

/**
 * The services a deployment gives its tools. A run passes them through
 * unopened: only the tools look inside.
 */
export interface ToolServices {
  catalog: AgentCatalog;
  sessions: SessionStore;
  artifacts: ArtifactStore;
  /** Projects in the bucket, and their trees cached on local disk. */
  projects: ProjectStore;
  projectFiles: ProjectFileCache;
  /** Which projects this session's tools may read and write (see `projects/project-access.ts`). */
  projectAccess: ProjectAccess;
  /** Memory stores of users and projects (see `memory/`); absent in contexts built by hand: the memory tool then says so. */
  memory?: MemoryStore;
  /**
   * The session's permission overrides, as the run sees them (read at most once per run, and only
   * when the session has any). Absent in contexts built by hand: the registry then reads the store.
   */
  permissionOverrides?: () => Promise<PermissionMap | undefined>;
  /** web_fetch's results cache and per-host rate limit (see `tools/web-fetch-cache.ts`); absent in contexts built by hand: every fetch goes out. */
  webFetch?: WebFetchCache;
  /** Environments (see `environment-store/`): a session's commands run under its environment's settings. Absent: the default environment. */
  environments?: EnvironmentStore;
  /** Writes a session's repository resources into a run's working copy (the composition fetches them from GitHub). Absent: such resources cannot be mounted. */
  mountRepositories?: (dir: string, resources: readonly GitHubRepositoryResource[]) => Promise<void>;
  /** Users' vaults (see `vaults/`): http_request puts a session's vault credentials on the wire. Absent: sessions have no vault credentials. */
  vaults?: VaultStore;
}

/** Picks the tool services out of a deployment's wider set of dependencies. */
export function toolServices(from: ToolServices): ToolServices {
  const { catalog, sessions, artifacts, projects, projectFiles, projectAccess, memory, webFetch, environments, mountRepositories, vaults } = from;
  return {
    catalog,
    sessions,
    artifacts,
    projects,
    projectFiles,
    projectAccess,
    ...(memory ? { memory } : {}),
    ...(webFetch ? { webFetch } : {}),
    ...(environments ? { environments } : {}),
    ...(mountRepositories ? { mountRepositories } : {}),
    ...(vaults ? { vaults } : {}),
  };
}

/** What a tool's execute function may use: the call, its run, and the tool services. */
export interface ToolContext extends ToolServices {
  sessionId: string;
  runId: string;
  toolCallId: string;
  /**
   * `<run id>:<tool call id>`. A call whose result was not recorded (its process
   * died) is executed again with the same key after a resume: a tool with side
   * effects uses it to make them happen at most once.
   */
  idempotencyKey: string;
  projectId?: string;
  agent: AgentDefinition;
  /** Aborted on tool timeout, run cancel or shutdown. */
  signal: AbortSignal;
  /** Hands a task to another agent as a child run; absent where the run cannot delegate. */
  delegator?: Delegator;
  /**
   * Asks a person to decide a call the permission policy marks `ask`. Absent
   * where approvals cannot be collected: then `ask` refuses the call, naming
   * the policy. Must not throw.
   */
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  /** Adds an executed program to the session log (run_command's audit entry); absent where there is no log. */
  recordCommand?: (entry: CommandAudit) => Promise<void>;
}

/** What the session log keeps of a program run_command executed (a `command` record). */
export interface CommandAudit {
  tool_use_id: string;
  project_id: string;
  started_at: string;
  /** The folder inside the run's project copy, "." for its root. */
  cwd: string;
  argv: string[];
  exit_code: number | null;
  signal?: string;
  timed_out?: boolean;
  duration_ms: number;
}

/** A call that waits for a person: what it is, and the policy that asked. */
export interface ApprovalRequest {
  toolCallId: string;
  name: string;
  input: unknown;
  /** The policy that asked, e.g. `session override "write_file"`. */
  policy: string;
}

/** A person's decision on an ApprovalRequest; `wait`: none yet, the call waits (the run records that and ends its invocation). */
export interface ApprovalAnswer {
  decision: 'allow' | 'deny' | 'wait';
  /** Shown to the model with a denial. */
  message?: string;
  /** Who decided, named in the result the model sees. */
  by?: string;
}

/** A task for another agent, as `delegate_agent` receives it. */
export interface DelegationRequest {
  agentId: string;
  task: string;
  context?: string;
  /** Run the delegate on the deployment's model of this tier instead of its own. */
  tier?: 'light' | 'standard' | 'heavy';
}

/** Runs delegated tasks on behalf of one run (see `run/delegate.ts`). */
export interface Delegator {
  /** Runs the task as a child run and answers with its final text. Must not throw: a refusal or failure is an error output. */
  delegate(request: DelegationRequest, call: { toolCallId: string; signal: AbortSignal }): Promise<ToolOutput>;
}

/**
 * A tool's answer; a plain string is a successful result. `usage` is what the
 * tool spent on model calls (a delegated run), added to the calling run's usage.
 */
export type ToolOutput = string | { content: string; is_error?: boolean; usage?: Usage; images?: ToolImage[] };

/** An image a tool returns (an MCP server's image content): the model sees it as an image block beside the text. */
export interface ToolImage {
  media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** Base64. */
  data: string;
}

/**
 * What a tool says of one call before any rule decides: `readOnly`, the call only reads although the tool
 * may not (run_command's allowlisted commands over a scratch copy), so the deployment's read-only default
 * applies; `ask`, why the call needs a person unless a rule decides otherwise (delete_path, a command
 * outside the allowlist). Session, agent and deployment rules and the agent's permissionMode still come first.
 */
export interface CallPolicy {
  readOnly?: boolean;
  ask?: string;
}

/** A tool the loop executes: zod input (sent to the model as JSON Schema), a description for the model, and execute. */
export interface ToolSpec<I = unknown> {
  name: string;
  description: string;
  input: z.ZodType<I>;
  /** Overrides the run's per-tool timeout. */
  timeoutMs?: number;
  /**
   * True for a tool that changes, sends and executes nothing: the deployment
   * default for read-only tools applies to it. Absent or false, the tool has
   * side effects (the stricter default), so a tool must say it only reads.
   */
  readOnly?: boolean;
  /**
   * What a permission rule's input glob is matched against, e.g. write_file's
   * path for `write_file(reports/**)`. A tool without one is matched by its name only.
   * May look at the call's context (the memory tool names the store it writes) and must not throw.
   */
  policySubject?: (input: I, context: ToolContext) => string | undefined | Promise<string | undefined>;
  /**
   * Rules that come with the tool, matched against its subject, at the deployment's level below
   * `ZERO_PERMISSIONS`'s own rules: e.g. the memory tool allows writing the user's own store.
   */
  builtInRules?: PermissionMap;
  /** The tool's own say on one call, below every rule (see `CallPolicy`). */
  callPolicy?: (input: I) => CallPolicy | undefined;
  /**
   * Runs other agents, whose own calls may have side effects: the call waits for its step's record to be
   * durable as a call with side effects does (see run/loop.ts), whatever `readOnly` says for the policy.
   */
  startsRuns?: boolean;
  /** The input's JSON Schema as the model is sent it, when it comes from elsewhere (an MCP server) rather than from `input`. */
  inputSchema?: { type: 'object'; [key: string]: unknown };
  /** The MCP server that provides the tool: the deployment's default for MCP tools applies to it (see `tools/policy`). */
  mcpServer?: string;
  execute(input: I, context: ToolContext): Promise<ToolOutput>;
}

/**
 * Tools an agent gets when a run starts, beyond the registry's (its MCP
 * servers' tools). Must not throw: a source that cannot answer gives what it can.
 */
export interface AgentToolSource {
  toolsFor(agent: AgentDefinition): Promise<ToolSpec<any>[]>;
}

/** Declares a tool with its input type inferred from the schema. */
export function defineTool<S extends z.ZodType>(spec: {
  name: string;
  description: string;
  /** The input's schema, or a function building it on first use (a cold start defines every tool but calls few). */
  input: S | (() => S);
  timeoutMs?: number;
  readOnly?: boolean;
  policySubject?: (input: z.output<S>, context: ToolContext) => string | undefined | Promise<string | undefined>;
  builtInRules?: PermissionMap;
  callPolicy?: (input: z.output<S>) => CallPolicy | undefined;
  startsRuns?: boolean;
  execute(input: z.output<S>, context: ToolContext): Promise<ToolOutput>;
}): ToolSpec<z.output<S>> {
  const { input } = spec;
  if (typeof input !== 'function') return spec as ToolSpec<z.output<S>>;
  let built: S | undefined;
  return Object.defineProperty({ ...spec }, 'input', { enumerable: true, get: () => (built ??= input()) }) as unknown as ToolSpec<z.output<S>>;
}
