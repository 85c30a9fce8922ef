import { splitPermissionRule, stricter, type PermissionMap } from '../wire';
import { TOOL_ALIASES } from './claude-code-tools';

/**
 * A rule with Claude Code's tool name mapped to Zero's (`Write(reports/**)` →
 * `write_file(reports/**)`; `WebFetch(domain:example.com)` → `web_fetch(example.com)`).
 */
export function normalizePermissionRule(rule: string): string {
  const { tool, input } = splitPermissionRule(rule.trim());
  const name = TOOL_ALIASES[tool] ?? tool;
  if (input === undefined) return name;
  return `${name}(${name === 'web_fetch' ? input.replace(/^domain:/, '') : input})`;
}

/** A permission map with every rule normalised; two rules that become one keep the stricter decision. */
export function normalizePermissionMap(map: PermissionMap): PermissionMap {
  const out: PermissionMap = {};
  for (const [rule, decision] of Object.entries(map)) {
    const key = normalizePermissionRule(rule);
    out[key] = out[key] ? stricter(out[key], decision) : decision;
  }
  return out;
}
