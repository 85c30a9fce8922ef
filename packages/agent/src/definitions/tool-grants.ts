import picomatch from 'picomatch';
import { TOOL_ALIASES, unavailableReason } from './claude-code-tools';

/** The memory tool: an agent has it when its file sets `memory:` (see `memory/`), and only then by inheritance. */
const MEMORY_TOOL = 'memory';

/** What an agent file's `tools:` comes to in Zero. */
export interface ToolGrants {
  tools: string[];
  unavailable: { name: string; reason: string }[];
}

/**
 * Resolves `tools:` to Zero tool names. Without `tools:` the agent inherits
 * every registered tool, as a Claude Code subagent does, resolved here to
 * concrete names so the registry's grant check needs no special case;
 * `delegate_agent` only when the file names agents to delegate to (a Claude
 * Code subagent cannot start subagents), `memory` only when the file sets
 * `memory:` (then also beside a `tools:` list). Names Zero does not have are kept
 * aside with the reason, never silently dropped. Without `known` (no
 * registry at hand) listed names are taken unchecked and an unlisted file gets none.
 */
export function resolveToolGrants(
  listed: readonly string[] | undefined,
  known: ReadonlySet<string> | undefined,
  delegates: boolean,
  disallowed: readonly string[] = [],
  memory = false,
): ToolGrants {
  const grants = grantsOf(listed, known, delegates, memory);
  if (disallowed.length === 0) return grants;
  // Claude Code's `disallowedTools`: a name or glob without an input rule takes the tool away.
  const removed = picomatch(disallowed.map((name) => TOOL_ALIASES[name] ?? name));
  return { ...grants, tools: grants.tools.filter((tool) => !removed(tool)) };
}

function grantsOf(listed: readonly string[] | undefined, known: ReadonlySet<string> | undefined, delegates: boolean, memory: boolean): ToolGrants {
  if (listed === undefined) {
    return { tools: [...(known ?? [])].filter((name) => (name !== 'delegate_agent' || delegates) && (name !== MEMORY_TOOL || memory)), unavailable: [] };
  }
  const tools: string[] = [];
  const unavailable: ToolGrants['unavailable'] = [];
  for (const name of listed) {
    // MCP tools are granted by name or glob and listed by their servers when a run starts (see mcpToolGrants).
    if (isMcpGrant(name)) continue;
    const tool = TOOL_ALIASES[name] ?? name;
    if (known && !known.has(tool)) {
      if (!unavailable.some((entry) => entry.name === name)) unavailable.push({ name, reason: unavailableReason(name, known) });
    } else if (!tools.includes(tool)) tools.push(tool);
  }
  // `memory:` grants the memory tool, as Claude Code's grants the file tools on the memory folder.
  if (memory && (!known || known.has(MEMORY_TOOL)) && !tools.includes(MEMORY_TOOL)) tools.push(MEMORY_TOOL);
  return { tools, unavailable };
}

const isMcpGrant = (name: string) => name.startsWith('mcp__');

/** `mcp__github` (Claude Code: every tool of the server) as the glob it stands for. */
function mcpPattern(name: string): string {
  const rest = name.slice('mcp__'.length);
  return rest && !rest.includes('__') && !/[*?[\]{}!]/.test(rest) ? `${name}__*` : name;
}

/**
 * The MCP tools `tools:` grants: its `mcp__` names and globs (`mcp__github__*`),
 * or every MCP tool when the file lists no tools (as a Claude Code subagent
 * inherits them), and the `disallowedTools` entries that take some away.
 */
export function mcpToolGrants(listed: readonly string[] | undefined, disallowed: readonly string[] = []): { tools: string[]; disallowed: string[] } {
  const tools = listed === undefined ? ['mcp__*'] : [...new Set(listed.filter(isMcpGrant).map(mcpPattern))];
  return { tools, disallowed: [...new Set(disallowed.filter(isMcpGrant).map(mcpPattern))] };
}
