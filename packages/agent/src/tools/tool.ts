import type * as z from 'zod';
import type { AgentDefinition } from '../definitions/definition';
import type { PermissionMap, Usage } from '../wire';
import { onFirstUse } from '../on-first-use';

/**
 * The tool contract: what a tool is (`ToolSpec`), what it is given (`ToolContext`), and what it answers
 * (`ToolOutput`). It names no store: a tool's services are a type parameter the runtime binds.
 */

/**
 * What a tool's execute function may use: the call and its run (`ToolCallContext`), and the services
 * `S` the deployment gives its tools, spread beside them (the AI SDK passes a tool its context the
 * same way: the loop hands `S` over unopened, and only the tools look inside). The contract names
 * no store: the runtime binds `S` to its services (see `@zero/runtime/tools/tool`).
 */
export type ToolContext<S extends object = {}> = ToolCallContext & S;

/** The call's part of a tool's context: which call, of which run, for which agent, and what it may ask of its run. */
export interface ToolCallContext {
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
  /**
   * The session's permission overrides, as the run sees them (read at most once per run, and only
   * when the session has any). Absent: the call is decided without overrides.
   */
  permissionOverrides?: () => Promise<PermissionMap | undefined>;
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

/** Runs delegated tasks on behalf of one run (the runtime's `run/delegate.ts`). */
export interface Delegator {
  /** Runs the task as a child run and answers with its final text. Must not throw: a refusal or failure is an error output. */
  delegate(request: DelegationRequest, call: { toolCallId: string; signal: AbortSignal }): Promise<ToolOutput>;
}

/**
 * A tool's answer; a plain string is a successful result. `usage` is what the
 * tool spent on model calls (a delegated run), added to the calling run's usage.
 */
export type ToolOutput =
  | string
  | {
      content: string;
      is_error?: boolean;
      usage?: Usage;
      images?: ToolImage[];
      /**
       * The call has no result yet: it waits for people's decisions on these calls of a delegated run
       * (their ids). The calling run waits on them as on its own; a decision carries it on, and the call is run again.
       */
      waitsOn?: string[];
    };

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

/**
 * A tool the loop executes: zod input (sent to the model as JSON Schema), a description for the model, and execute.
 * `S`: the services the tool reads from its context (none for a tool that needs only its call).
 */
export interface ToolSpec<I = unknown, S extends object = {}> {
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
  policySubject?: (input: I, context: ToolContext<S>) => string | undefined | Promise<string | undefined>;
  /**
   * Rules that come with the tool, matched against its subject, at the deployment's level below
   * `ZERO_PERMISSIONS`'s own rules: e.g. the memory tool allows writing the user's own store.
   */
  builtInRules?: PermissionMap;
  /** The tool's own say on one call, below every rule (see `CallPolicy`). */
  callPolicy?: (input: I) => CallPolicy | undefined;
  /**
   * Runs other agents, whose own calls may have side effects: the call waits for its step's record to be
   * durable as a call with side effects does (see loop/loop.ts), whatever `readOnly` says for the policy.
   */
  startsRuns?: boolean;
  /** The input's JSON Schema as the model is sent it, when it comes from elsewhere (an MCP server) rather than from `input`. */
  inputSchema?: { type: 'object'; [key: string]: unknown };
  /** The MCP server that provides the tool: the deployment's default for MCP tools applies to it (see `tools/policy/`). */
  mcpServer?: string;
  execute(input: I, context: ToolContext<S>): Promise<ToolOutput>;
}

/**
 * Tools an agent gets when a run starts, beyond the registry's (its MCP
 * servers' tools). Must not throw: a source that cannot answer gives what it can.
 */
export interface AgentToolSource<S extends object = any> {
  /** `run.sessionId`: the session the tools are for (its vault credentials may authorize its servers). */
  toolsFor(agent: AgentDefinition, run?: { sessionId: string }): Promise<ToolSpec<any, S>[]>;
}

/** What `defineTool` takes: a tool whose input type is inferred from its schema `Sch`, over the services `S`. */
export interface ToolDefinition<Sch extends z.ZodType, S extends object = {}> {
  name: string;
  description: string;
  /** The input's schema, or a function building it on first use (a cold start defines every tool but calls few). */
  input: Sch | (() => Sch);
  timeoutMs?: number;
  readOnly?: boolean;
  policySubject?: (input: z.output<Sch>, context: ToolContext<S>) => string | undefined | Promise<string | undefined>;
  builtInRules?: PermissionMap;
  callPolicy?: (input: z.output<Sch>) => CallPolicy | undefined;
  startsRuns?: boolean;
  execute(input: z.output<Sch>, context: ToolContext<S>): Promise<ToolOutput>;
}

/** Declares a tool with its input type inferred from the schema; `S`, the services it reads (none by default). */
export function defineTool<Sch extends z.ZodType, S extends object = {}>(spec: ToolDefinition<Sch, S>): ToolSpec<z.output<Sch>, S> {
  const { input } = spec;
  if (typeof input !== 'function') return spec as ToolSpec<z.output<Sch>, S>;
  return Object.defineProperty({ ...spec }, 'input', { enumerable: true, get: onFirstUse(input) }) as unknown as ToolSpec<z.output<Sch>, S>;
}
