import type picomatchModule from 'picomatch';
import type { AgentDefinition } from '../../definitions/definition';
import { splitPermissionRule, stricter, type PermissionDecision, type PermissionMap, type ToolPolicy } from '../../wire';
import type { DeploymentPermissions } from './deployment';

export type PermissionLevel = 'session' | 'agent' | 'deployment';

/** A decision and the policy that gave it, named for the model, the API and the logs. */
export interface PermissionVerdict {
  decision: PermissionDecision;
  level: PermissionLevel;
  /** e.g. `session override "write_file"`, `agent "nikon" permissionMode "plan"`. */
  source: string;
}

/** What the policy knows of a tool: its name and whether it only reads. */
export interface PolicyTool {
  name: string;
  /** A tool that changes, sends or executes nothing (see `ToolSpec.readOnly`). */
  readOnly: boolean;
  /** Provided by an MCP server: the deployment's default for MCP tools applies, whatever `readOnly` says. */
  mcp?: boolean;
  /** The tool asks a person about this call unless a rule decides (see `CallPolicy.ask`): why. */
  ask?: string;
  /** Rules that come with the tool (see `ToolSpec.builtInRules`): below the deployment's own rules, above its defaults. */
  rules?: PermissionMap;
}

type AgentPolicy = Pick<AgentDefinition, 'id' | 'permissions' | 'permission_mode'>;

/** Tools Claude Code's `acceptEdits` lets run without asking: the ones that write files. */
const EDIT_TOOLS = new Set(['write_file', 'edit_file']);

/**
 * Decides every tool call: `allow`, `ask` or `deny`. Each layer says what it
 * says of the call: the deployment (its rules, then the tool's built-in
 * rules, then the tool's own say on the call, then its default for read-only
 * tools, tools with side effects and MCP tools: it always has a say), the
 * agent (its `permissions:` rules, then its `permissionMode`) and the
 * session's overrides. The strictest of them decides (deny > ask > allow), so
 * the deployment bounds every layer: an agent, whoever made it (a file, the
 * `/v1` API's `permission_policy`), and a session may tighten it, never
 * loosen it. Within one layer a rule on the input (`write_file(reports/**)`)
 * beats a rule on the tool alone, an exact name beats a glob, and between
 * equals the stricter decision wins. Every door's runs use this one decision:
 * the tool registry asks it before any call runs.
 */
export class PermissionPolicy {
  readonly deployment: Required<DeploymentPermissions>;

  constructor(deployment: DeploymentPermissions = {}) {
    this.deployment = { read_only: 'allow', side_effects: 'ask', mcp: 'ask', rules: {}, ...deployment };
  }

  /** The decision for one call; `subject` is what input rules match (the tool's `policySubject`), if it has one. */
  async decide(tool: PolicyTool, agent: AgentPolicy, session: PermissionMap | undefined, subject?: string): Promise<PermissionVerdict> {
    await loadMatcher();
    const verdict = strictest([
      match(this.deployment.rules, tool.name, subject, 'deployment', 'ZERO_PERMISSIONS rule') ??
        match(tool.rules, tool.name, subject, 'deployment', `tool "${tool.name}" built-in rule`) ??
        (tool.ask ? { decision: 'ask', level: 'deployment', source: tool.ask } : this.defaultFor(tool)),
      match(agent.permissions, tool.name, subject, 'agent', `agent "${agent.id}" permissions`) ?? modeVerdict(tool, agent),
      match(session, tool.name, subject, 'session', 'session override'),
    ]);
    // Claude Code's dontAsk: what the agent or the deployment would ask about is refused instead.
    if (verdict.decision === 'ask' && verdict.level !== 'session' && agent.permission_mode === 'dontAsk') {
      return { decision: 'deny', level: 'agent', source: `${verdict.source}, refused by agent "${agent.id}" permissionMode "dontAsk"` };
    }
    return verdict;
  }

  /**
   * A tool's policy as `GET /agents` shows it: the decision for a call no input rule matches, and
   * every layer's input rules on the tool, which may make a call's decision stricter (or, where every
   * layer allows it, let it run).
   */
  async describe(tool: PolicyTool, agent: AgentPolicy, session?: PermissionMap): Promise<ToolPolicy> {
    const verdict = await this.decide(tool, agent, session);
    const levels: [PermissionLevel, PermissionMap | undefined][] = [
      ['session', session],
      ['agent', agent.permissions],
      ['deployment', this.deployment.rules],
      ['deployment', tool.rules],
    ];
    const input_rules = levels.flatMap(([level, map]) =>
      Object.entries(map ?? {})
        .filter(([rule]) => compile(rule).input && compile(rule).tool(tool.name))
        .map(([rule, decision]) => ({ rule, decision, level })),
    );
    return { ...verdict, input_rules };
  }

  private defaultFor(tool: PolicyTool): PermissionVerdict {
    // A server's readOnlyHint is the server's own word: MCP tools keep their own default (ask, unless the deployment says otherwise).
    if (tool.mcp) return { decision: this.deployment.mcp, level: 'deployment', source: 'the deployment default for MCP tools' };
    return tool.readOnly
      ? { decision: this.deployment.read_only, level: 'deployment', source: 'the deployment default for read-only tools' }
      : { decision: this.deployment.side_effects, level: 'deployment', source: 'the deployment default for tools with side effects' };
  }
}

const RANK: Record<PermissionLevel, number> = { deployment: 0, agent: 1, session: 2 };

/**
 * The strictest of the layers' verdicts (deny > ask > allow); between equal decisions the most specific
 * layer names it (session, then agent, then deployment). The first verdict, the deployment's, is always there.
 */
export function strictest(verdicts: [PermissionVerdict, ...(PermissionVerdict | undefined)[]]): PermissionVerdict {
  return verdicts.reduce<PermissionVerdict>((a, b) => {
    if (!b) return a;
    if (a.decision === b.decision) return RANK[b.level] > RANK[a.level] ? b : a;
    return stricter(a.decision, b.decision) === a.decision ? a : b;
  }, verdicts[0]);
}

/** What the agent's `permissionMode` says about a tool, if anything. */
function modeVerdict(tool: PolicyTool, agent: AgentPolicy): PermissionVerdict | undefined {
  const source = `agent "${agent.id}" permissionMode "${agent.permission_mode}"`;
  switch (agent.permission_mode) {
    case 'bypassPermissions':
      return { decision: 'allow', level: 'agent', source };
    case 'acceptEdits':
      return EDIT_TOOLS.has(tool.name) ? { decision: 'allow', level: 'agent', source } : undefined;
    case 'plan':
      return tool.readOnly ? undefined : { decision: 'deny', level: 'agent', source };
    default:
      return undefined;
  }
}

/** The most specific rule of `map` that matches the call, as a verdict. */
function match(map: PermissionMap | undefined, tool: string, subject: string | undefined, level: PermissionLevel, label: string): PermissionVerdict | undefined {
  let best: { score: number; decision: PermissionDecision; rule: string } | undefined;
  for (const [rule, decision] of Object.entries(map ?? {})) {
    const compiled = compile(rule);
    if (!compiled.tool(tool)) continue;
    if (compiled.input && (subject === undefined || !compiled.input(subject))) continue;
    const score = (compiled.input ? 2 : 0) + (compiled.exact ? 1 : 0);
    if (!best || score > best.score || (score === best.score && stricter(decision, best.decision) !== best.decision)) best = { score, decision, rule };
  }
  return best && { decision: best.decision, level, source: `${label} "${best.rule}"` };
}

interface CompiledRule {
  tool: (name: string) => boolean;
  /** Absent for a rule on the tool alone. */
  input?: (subject: string) => boolean;
  /** The tool part is a name, not a glob. */
  exact: boolean;
}

// The glob library loads with the first decision, not at cold start.
let picomatch: typeof picomatchModule | undefined;
let loading: Promise<unknown> | undefined;
const loadMatcher = () => (loading ??= import('picomatch').then((module) => (picomatch = module.default)));

// Rules come from agent files, session overrides and the deployment: few, and reused by every call.
const compiled = new Map<string, CompiledRule>();
const MAX_COMPILED = 2_000;

function compile(rule: string): CompiledRule {
  let entry = compiled.get(rule);
  if (entry) return entry;
  const { tool, input } = splitPermissionRule(rule);
  if (!picomatch) throw new Error('the permission rules were read before their matcher loaded');
  entry = {
    tool: picomatch(tool),
    ...(input === undefined ? {} : { input: picomatch(input, { dot: true }) }),
    exact: !picomatch.scan(tool).isGlob,
  };
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(rule, entry);
  return entry;
}
