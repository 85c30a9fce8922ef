import type { PermissionMap } from '../wire';
import * as z from 'zod';
import type { AgentCatalog } from '../agent/catalog';
import type { AgentDefinition } from '../agent/definition';
import type { ProjectAccess } from '../projects/project-access';
import type { ProjectFileCache } from '../projects/file-cache';
import type { ProjectStore } from '../projects/project-store';
import type { Usage } from '../wire';
import type { ArtifactStore } from '../store/artifact-store';
import type { SessionStore } from '../store/session-store';

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
  /**
   * The session's permission overrides, as the run sees them (read at most once per run, and only
   * when the session has any). Absent in contexts built by hand: the registry then reads the store.
   */
  permissionOverrides?: () => Promise<PermissionMap | undefined>;
}

/** Picks the tool services out of a deployment's wider set of dependencies. */
export function toolServices(from: ToolServices): ToolServices {
  const { catalog, sessions, artifacts, projects, projectFiles, projectAccess } = from;
  return { catalog, sessions, artifacts, projects, projectFiles, projectAccess };
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
export type ToolOutput = string | { content: string; is_error?: boolean; usage?: Usage };

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
   */
  policySubject?: (input: I) => string | undefined;
  /**
   * Rules the tool brings for itself, e.g. http_request's `http_request(GET *)`: allow (its other
   * methods are side effects). The deployment's own rules (`ZERO_PERMISSIONS`), the agent file and the
   * session still come first; these come before the deployment's default for read-only and side-effect tools.
   */
  defaultPermissions?: PermissionMap;
  /**
   * Runs other agents, whose own calls may have side effects: the call waits for its step's record to be
   * durable as a call with side effects does (see run/loop.ts), whatever `readOnly` says for the policy.
   */
  startsRuns?: boolean;
  execute(input: I, context: ToolContext): Promise<ToolOutput>;
}

/** Declares a tool with its input type inferred from the schema. */
export function defineTool<S extends z.ZodType>(spec: {
  name: string;
  description: string;
  input: S;
  timeoutMs?: number;
  readOnly?: boolean;
  policySubject?: (input: z.output<S>) => string | undefined;
  defaultPermissions?: PermissionMap;
  startsRuns?: boolean;
  execute(input: z.output<S>, context: ToolContext): Promise<ToolOutput>;
}): ToolSpec<z.output<S>> {
  return spec as ToolSpec<z.output<S>>;
}
