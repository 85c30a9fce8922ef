import * as z from 'zod';
import type { PermissionMap, ToolPolicy, Usage } from '../wire';
import type { ToolUnion } from '../model/provider';
import type { AgentDefinition } from '../definitions/definition';
import { PermissionPolicy, type DeploymentPermissions, type PermissionVerdict } from './policy';
import type { ToolContext, ToolImage, ToolOutput, ToolSpec } from './tool';

export interface ToolResult {
  content: string;
  /** Images the model sees with `content` (an MCP tool's image results). */
  images?: ToolImage[];
  is_error: boolean;
  truncated: boolean;
  /** Model usage the tool incurred (a delegated run), rolled up into the caller's. */
  usage?: Usage;
  /** The call was not run: it waits for a person's decision, and has no result yet. */
  waiting?: true;
  /** With `waiting`: the calls whose decisions it waits for, when they are not itself (a delegated run's). */
  waitsOn?: string[];
}

/** A tool run by the model provider; Zero only sends its definition and relays its blocks as events. */
export interface ServerToolSpec {
  name: string;
  description: string;
  definition: ToolUnion;
}

type InputSchema = { type: 'object'; [key: string]: unknown };

export interface ExecuteOptions {
  timeoutMs: number;
  maxOutputChars: number;
}

/**
 * The tools Zero knows, by name. Agents pick theirs through frontmatter `tools:`.
 * `S`: the services every call's context carries (the runtime's tool services); the registry never looks inside.
 */
export class ToolRegistry<S extends object = any> {
  private readonly tools = new Map<string, ToolSpec<any, S>>();
  /** Each tool's input as JSON Schema, converted when a run first sends it: a cold start registers every tool but sends few. */
  private readonly schemas = new Map<string, InputSchema>();
  private readonly serverTools = new Map<string, ServerToolSpec>();
  /** Decides every call `execute` is asked to run: allow, ask or deny. */
  readonly policy: PermissionPolicy;

  constructor(tools: (ToolSpec<any, S> | ServerToolSpec)[] = [], options: { permissions?: DeploymentPermissions; policy?: PermissionPolicy } = {}) {
    this.policy = options.policy ?? new PermissionPolicy(options.permissions);
    for (const tool of tools) {
      if ('definition' in tool) this.registerServerTool(tool);
      else this.register(tool);
    }
  }

  /** A tool the model provider runs (e.g. Anthropic's web search): sent with the request, never executed here. */
  registerServerTool(tool: ServerToolSpec): void {
    if (this.tools.has(tool.name) || this.serverTools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.serverTools.set(tool.name, tool);
  }

  register(tool: ToolSpec<any, S>): void {
    if (this.tools.has(tool.name) || this.serverTools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
  }

  /**
   * A registry for one run: these tools and this policy, and `extra` tools
   * found when the run starts (its agent's MCP tools). This registry is left as it is.
   */
  extend(extra: readonly ToolSpec<any, S>[]): ToolRegistry<S> {
    if (extra.length === 0) return this;
    const scoped = new ToolRegistry<S>([...this.tools.values(), ...this.serverTools.values()], { policy: this.policy });
    for (const [name, schema] of this.schemas) scoped.schemas.set(name, schema);
    for (const tool of extra) scoped.register(tool);
    return scoped;
  }

  names(): ReadonlySet<string> {
    return new Set([...this.tools.keys(), ...this.serverTools.keys()]);
  }

  get(name: string): ToolSpec<any, S> | undefined {
    return this.tools.get(name);
  }

  /** The Anthropic tool definitions for the given names, in a stable order; server tools as their typed definitions. */
  definitions(names: readonly string[]): ToolUnion[] {
    return names.flatMap((name): ToolUnion[] => {
      const server = this.serverTools.get(name);
      if (server) return [server.definition];
      const tool = this.tools.get(name);
      if (!tool) return [];
      return [{ name, description: tool.description, input_schema: this.inputSchema(tool) }];
    });
  }

  private inputSchema(tool: ToolSpec<any, S>): InputSchema {
    if (tool.inputSchema) return tool.inputSchema;
    let schema = this.schemas.get(tool.name);
    if (!schema) {
      const { $schema: _ignored, ...converted } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
      schema = converted as InputSchema;
      this.schemas.set(tool.name, schema);
    }
    return schema;
  }

  /** Name and description of each of the given tools, for the system prompt. */
  describe(names: readonly string[]): { name: string; description: string }[] {
    return names.flatMap((name) => {
      const tool = this.tools.get(name) ?? this.serverTools.get(name);
      return tool ? [{ name, description: tool.description }] : [];
    });
  }

  /**
   * The permission policy of each of the agent's tools that Zero executes,
   * with the session's overrides when given (server tools such as web_search
   * are run by the model provider: only their grant applies).
   */
  async effectivePolicy(agent: AgentDefinition, overrides?: PermissionMap): Promise<Record<string, ToolPolicy>> {
    const entries = await Promise.all(
      agent.tools.flatMap((name) => {
        const tool = this.tools.get(name);
        return tool ? [this.policy.describe(policyTool(tool), agent, overrides).then((policy) => [name, policy] as const)] : [];
      }),
    );
    return Object.fromEntries(entries);
  }

  /**
   * Runs one tool call for `context.agent`. Must not throw: a tool the agent
   * was not granted or that the permission policy does not allow (refused
   * here, before anything runs, so no caller can skip the check), an unknown
   * tool, invalid input, a timeout or a failure becomes an error result the
   * model sees.
   */
  async execute(name: string, input: unknown, context: ToolContext<S>, options: ExecuteOptions): Promise<ToolResult> {
    const tool = this.tools.get(name);
    const granted = context.agent.tools;
    // A call the model wrote as text that could not be read (see model/text-tool-protocol.ts): nothing to run, the problem to fix.
    const problem = problemOf(input);
    if (problem) return errorResult(`The tool call was not run: ${problem}.`);
    if (!tool) return errorResult(`Unknown tool "${name}". Available tools: ${granted.filter((n) => this.tools.has(n)).join(', ') || 'none'}.`);
    if (!granted.includes(name)) {
      return errorResult(`Tool "${name}" is not granted to agent "${context.agent.id}"; it was not run. Its tools: ${granted.join(', ') || 'none'}.`);
    }
    if (isInvalidJson(input)) return errorResult(`The input for ${name} was not valid JSON. Send a JSON object matching the tool's schema.`);
    const parsed = tool.input.safeParse(input);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(input)'}: ${issue.message}`);
      return errorResult(`Invalid input for ${name}: ${problems.join('; ')}`);
    }
    const refused = await this.permit(tool, parsed.data, context, input);
    if (refused) return refused;
    const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
    const controller = new AbortController();
    const onAbort = () => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ToolOutput>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error('tool timeout'));
        resolve({ content: `${name} timed out after ${timeoutMs} ms and was stopped.`, is_error: true });
      }, timeoutMs);
    });
    try {
      const output = await Promise.race([tool.execute(parsed.data, { ...context, signal: controller.signal }), timeout]);
      if (typeof output === 'string') return truncate({ content: output, is_error: false }, options.maxOutputChars);
      if (output.waitsOn?.length) return { content: output.content, is_error: true, truncated: false, waiting: true, waitsOn: output.waitsOn, ...(output.usage ? { usage: output.usage } : {}) };
      const result = truncate({ content: output.content, is_error: !!output.is_error }, options.maxOutputChars);
      return { ...result, ...(output.usage ? { usage: output.usage } : {}), ...(output.images?.length ? { images: output.images } : {}) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return errorResult(`${name} failed: ${message}`);
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The permission policy for a call of a client tool that stands in for `replaces` (a self-hosted
   * environment's `bash` for Zero's): decided as a call of `replaces` would be (the deployment's
   * rules and defaults, the agent's rules and mode, the session's overrides; `ask` collects an
   * approval through `context.requestApproval`). Undefined when the client may be handed the call,
   * else the error result the model sees, or a `waiting` result. Input rules and the tool's own say
   * on the call (`callPolicy`) apply when the input is one `replaces` takes; otherwise only the
   * rules on the tool's name do. Must not throw.
   */
  async permitAs(replaces: string, name: string, input: unknown, context: ToolContext<S>): Promise<ToolResult | undefined> {
    // A tool this deployment lacks is judged as one with side effects, under its name.
    const tool: ToolSpec<any, S> = this.tools.get(replaces) ?? { name: replaces, description: '', readOnly: false, input: z.never(), execute: async () => '' };
    const parsed = tool.input.safeParse(input);
    return this.permit({ ...tool, ...(parsed.success ? {} : { callPolicy: undefined, policySubject: undefined }) }, parsed.success ? parsed.data : undefined, context, input, name);
  }

  /**
   * Applies the permission policy to a call: undefined when it may run, else
   * the error result that says why not. The session's overrides are read on
   * each run (once), so an owner's change applies from the next run; a policy that
   * cannot be read refuses the call.
   */
  private async permit(tool: ToolSpec<any, S>, input: unknown, context: ToolContext<S>, asSent: unknown, name = tool.name): Promise<ToolResult | undefined> {
    let verdict: PermissionVerdict;
    try {
      // A run hands its overrides over (read once); a context without them has none.
      const overrides = await context.permissionOverrides?.();
      verdict = await this.policy.decide(policyTool(tool, tool.callPolicy?.(input)), context.agent, overrides, await tool.policySubject?.(input, context));
    } catch (error) {
      return errorResult(`Tool "${name}" was not run: its permission policy could not be read (${error instanceof Error ? error.message : String(error)}).`);
    }
    if (verdict.decision === 'allow') return undefined;
    if (verdict.decision === 'deny') return errorResult(`Tool "${name}" was not run: the permission policy denies it (${verdict.source}).`);
    if (!context.requestApproval) {
      return errorResult(
        `Tool "${name}" was not run: the permission policy asks a person to approve it first (${verdict.source}), ` +
          'and this deployment cannot collect approvals yet. Tell the user what you meant to do; a session owner can change the policy.',
      );
    }
    const answer = await context
      // The person decides on the input as the model sent it (a parsed input may be transformed, e.g. a command line into argv).
      .requestApproval({ toolCallId: context.toolCallId, name, input: asSent, policy: verdict.source })
      .catch(() => ({ decision: 'deny' as const, message: 'the approval could not be collected', by: undefined }));
    if (answer.decision === 'allow') return undefined;
    if (answer.decision === 'wait') return { content: `Tool "${name}" waits for a person's decision.`, is_error: true, truncated: false, waiting: true };
    return errorResult(`Tool "${name}" was not run: ${answer.by ?? 'a person'} denied it${answer.message ? `: ${answer.message}` : ''}.`);
  }
}

/** What the permission policy knows of a tool. */
/** What the policy knows of a tool, and what the tool says of this call (`callPolicy`), if it was given one. */
function policyTool(tool: ToolSpec<any, any>, call?: { readOnly?: boolean; ask?: string }) {
  return {
    name: tool.name,
    readOnly: tool.readOnly === true || call?.readOnly === true,
    ...(tool.mcpServer !== undefined ? { mcp: true } : {}),
    ...(tool.builtInRules ? { rules: tool.builtInRules } : {}),
    ...(call?.ask ? { ask: call.ask } : {}),
  };
}

function isInvalidJson(input: unknown): boolean {
  return typeof input === 'object' && input !== null && '__invalid_json__' in input;
}

/** What made a call's input unreadable, when its provider said (`__problem__` beside `__invalid_json__`). */
function problemOf(input: unknown): string | undefined {
  return isInvalidJson(input) && typeof (input as { __problem__?: unknown }).__problem__ === 'string' ? (input as { __problem__: string }).__problem__ : undefined;
}

function errorResult(content: string): ToolResult {
  return { content, is_error: true, truncated: false };
}

/** Cuts output at the cap and says so, so the model never mistakes a cut for the whole. */
export function truncate(result: { content: string; is_error: boolean }, maxChars: number): ToolResult {
  if (result.content.length <= maxChars) return { ...result, truncated: false };
  const omitted = result.content.length - maxChars;
  return {
    content: `${result.content.slice(0, maxChars)}\n\n[output truncated: ${omitted} of ${result.content.length} characters omitted]`,
    is_error: result.is_error,
    truncated: true,
  };
}
