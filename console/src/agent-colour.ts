import type { AgentInfo } from '@zero/agent/wire';

/** The colours an agent file may name (Claude Code's `color` values, and `magenta`), as the console draws them. */
const NAMED: Record<string, string> = {
  red: '#d64545',
  orange: '#e07b28',
  yellow: '#d4a514',
  green: '#3f9c4f',
  cyan: '#1fa2b8',
  blue: '#3b6fd6',
  purple: '#8a55c9',
  magenta: '#c23ca8',
  pink: '#e0619b',
};
const PALETTE = Object.values(NAMED);

/**
 * The colour the console marks an agent's answers with: its file's `color` (a name above or `#rrggbb`),
 * else one picked from its `domain`, so agents of one field share a colour; none without either.
 */
export function agentColour(agent: Pick<AgentInfo, 'color' | 'domain'> | undefined): string | undefined {
  const named = agent?.color?.trim().toLowerCase();
  if (named && NAMED[named]) return NAMED[named];
  if (named && /^#[0-9a-f]{6}$/.test(named)) return named;
  const domain = agent?.domain?.trim().toLowerCase();
  if (!domain) return undefined;
  let hash = 0;
  for (const char of domain) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return PALETTE[hash % PALETTE.length];
}
