import { describeZodError } from '../errors';
import { SKILL_TOOL } from './claude-code-tools';
import { agentFrontmatterSchema, skillRefOf, type AgentDefinition, type SkillRef, type AgentLoadError } from './definition';
import { readFrontmatter } from './frontmatter';
import { normalizePermissionMap, normalizePermissionRule } from './permissions';
import { EFFORT_BUDGETS } from '../model/thinking';
import { mcpToolGrants, resolveToolGrants } from './tool-grants';
import { permissionModeSchema, permissionRuleSchema, splitPermissionRule, type PermissionMap, type VoiceMode } from '../wire';

export type ParseResult = { ok: true; agent: AgentDefinition } | { ok: false; error: AgentLoadError };

const SECTIONS = {
  role: 'role',
  capabilities: 'capabilities',
  process: 'process',
  knowledge: 'knowledge',
  'data sources': 'data_sources',
  delegation: 'delegation',
} as const;
type SectionKey = (typeof SECTIONS)[keyof typeof SECTIONS];

const VOICE_START = /<!--\s*VOICE:(\w+)\s*-->/g;
const VOICE_END = /<!--\s*\/VOICE\s*-->|<!--\s*VOICE:\w+\s*-->|^##\s/m;
const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?/;
const AGENT_ID = /^[a-z0-9][a-z0-9_-]*$/;

/** Derives an agent id from a file name: `agents/Cereal.md` → `cereal`. */
export function agentIdFromFile(file: string): string {
  const base = file.split('/').pop() ?? file;
  return base.replace(/\.md$/i, '').toLowerCase();
}

/** The frontmatter keys Zero reads; the others (`hooks`, …) are Claude Code's own. */
const FRONTMATTER_KEYS = Object.keys(agentFrontmatterSchema.shape);

/**
 * Parses one agent file. Never throws: a malformed file yields an error that
 * names the file and the field, so one bad file cannot hide the good ones.
 * `knownTools` are the registry's tools: listed names are checked against
 * them, and a file without `tools:` gets them all (without a registry, the
 * listed names are taken unchecked and an unlisted file gets none).
 */
export function parseAgentMarkdown(file: string, text: string, knownTools?: ReadonlySet<string>): ParseResult {
  const fail = (field: string, message: string): ParseResult => ({ ok: false, error: { file, field, message } });
  const id = agentIdFromFile(file);
  if (!AGENT_ID.test(id)) return fail('file name', `"${id}" is not a valid agent id (lowercase letters, digits, "-" and "_")`);

  const fm = FRONTMATTER.exec(text);
  if (!fm) return fail('frontmatter', 'missing YAML frontmatter (a block between "---" lines at the top)');
  // A blank line stands for the opening `---`, so that YAML errors give the file's line numbers.
  const read = readFrontmatter(`\n${fm[1] ?? ''}`, FRONTMATTER_KEYS);
  // The whole message: its second half shows the offending line and column.
  if (!read.ok) return fail('frontmatter', `invalid YAML: ${read.yamlError}`);
  const raw = read.data;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('frontmatter', 'must be a YAML mapping');
  const parsed = agentFrontmatterSchema.safeParse(raw);
  if (!parsed.success) {
    // Read leniently, a file that still lacks what it needs is reported with the YAML error that started it.
    if (read.lenient) return fail('frontmatter', `invalid YAML: ${read.lenient.yamlError}`);
    const { field, message } = describeZodError(parsed.error);
    return fail(field || 'frontmatter', message);
  }
  const front = parsed.data;
  const body = text.slice(fm[0].length);
  const warnings: string[] = [];
  if (read.lenient) {
    warnings.push(`the frontmatter is not valid YAML (${read.lenient.yamlError.split('\n')[0]}); its fields were read line by line, as Claude Code reads them`);
  }

  const { voices, rest: bodyWithoutVoices } = extractVoices(body, warnings);

  const sections = splitSections(bodyWithoutVoices);
  const delegation = parseDelegation(sections.delegation ?? '');
  for (const target of front.delegates_to ?? []) {
    if (!delegation.some((rule) => rule.agent_id === target)) delegation.push({ agent_id: target, when: '' });
  }

  const disallowed: string[] = [];
  for (const entry of front.disallowedTools ?? []) {
    const rule = normalizePermissionRule(entry);
    if (permissionRuleSchema.safeParse(rule).success) disallowed.push(rule);
    else warnings.push(`disallowedTools entry "${entry}" is not a tool name, glob or rule Zero reads, and was ignored`);
  }
  const removed = disallowed.filter((rule) => splitPermissionRule(rule).input === undefined);
  const grants = resolveToolGrants(front.tools, knownTools, delegation.length > 0, removed, front.memory !== undefined);
  const mcpGrants = mcpToolGrants(front.tools, removed);
  for (const { name, reason } of grants.unavailable) warnings.push(`tool "${name}" was left out: ${reason}`);
  const permissions = permissionsOf(front.permissions, disallowed);
  const mode = permissionModeSchema.safeParse(front.permissionMode ?? 'default');
  if (!mode.success) warnings.push(`permissionMode "${front.permissionMode}" is not one Zero knows (${permissionModeSchema.options.join(', ')}); "default" is used`);
  if (front.tier && front.model && front.model !== 'inherit') warnings.push(`tier "${front.tier}" is ignored: model "${front.model}" is named`);
  const skills: SkillRef[] = [];
  for (const entry of front.skills ?? []) {
    const ref = skillRefOf(entry);
    if (!ref) return fail('skills', `"${entry}" is neither a skill's name (lowercase letters, digits and hyphens) nor a skill id (skill_…)`);
    skills.push(ref);
  }
  // read_skill is a run's exactly when its agent has skills: a file without `tools:` inherits it only then.
  const tools = skills.length || front.tools ? grants.tools : grants.tools.filter((name) => name !== SKILL_TOOL);
  const role = (sections.role ?? '').trim();
  const agent: AgentDefinition = {
    id,
    name: front.name,
    description: front.description,
    ...(front.color ? { color: front.color } : {}),
    ...(front.persona ? { persona: front.persona } : {}),
    ...(front.domain ? { domain: front.domain } : {}),
    model: front.model && front.model !== 'inherit' ? front.model : undefined,
    ...(front.fallback?.length ? { fallback: front.fallback } : {}),
    ...(front.tier && !(front.model && front.model !== 'inherit') ? { tier: front.tier } : {}),
    tools,
    unavailable_tools: grants.unavailable,
    ...(skills.length ? { skills } : {}),
    ...(permissions ? { permissions } : {}),
    ...(mode.success && mode.data !== 'default' ? { permission_mode: mode.data } : {}),
    ...(front.compaction ? { compaction: front.compaction } : {}),
    ...(front.tool_limits && Object.keys(front.tool_limits).length ? { tool_limits: front.tool_limits } : {}),
    ...(front.max_tool_iterations ? { max_tool_iterations: front.max_tool_iterations } : {}),
    ...(front.complexity ? { complexity: front.complexity } : {}),
    ...(front.thinking === false ? { thinking_budget: 0 } : front.thinking ? { thinking_budget: front.thinking.budget_tokens } : front.effort ? { thinking_budget: EFFORT_BUDGETS[front.effort] } : {}),
    mcp: { servers: front.mcpServers?.servers ?? {}, references: front.mcpServers?.references ?? [], ...mcpGrants },
    ...(front.memory ? { memory: front.memory === 'project' ? 'project' : 'user' } : {}),
    role: role || sections.extra.trim(),
    capabilities: bullets(sections.capabilities ?? ''),
    process: (sections.process ?? '').trim(),
    knowledge: bullets(sections.knowledge ?? ''),
    data_sources: bullets(sections.data_sources ?? ''),
    delegation,
    voices,
    default_voice: front.voice ?? 'full',
    extra: role ? sections.extra.trim() : '',
    warnings,
  };
  return { ok: true, agent };
}

/** The file's `permissions:` with Claude Code's names mapped, and every `disallowedTools` entry as `deny` (it wins any clash). */
function permissionsOf(map: PermissionMap | undefined, disallowed: readonly string[]): PermissionMap | undefined {
  if (!map && disallowed.length === 0) return undefined;
  const permissions = normalizePermissionMap(map ?? {});
  for (const rule of disallowed) permissions[rule] = 'deny';
  return permissions;
}

/**
 * A voice block runs from `<!-- VOICE:mode -->` to `<!-- /VOICE -->`, the next
 * voice marker, the next `## ` heading or the end of the file.
 */
function extractVoices(body: string, warnings: string[]) {
  const voices: Partial<Record<VoiceMode, string>> = {};
  let rest = '';
  let cursor = 0;
  for (const start of body.matchAll(VOICE_START)) {
    if (start.index < cursor) continue;
    rest += body.slice(cursor, start.index);
    const contentStart = start.index + start[0].length;
    const end = VOICE_END.exec(body.slice(contentStart));
    const contentEnd = end ? contentStart + end.index : body.length;
    const mode = start[1]!;
    if (mode === 'full' || mode === 'minimal' || mode === 'neutral') voices[mode] = body.slice(contentStart, contentEnd).trim();
    else warnings.push(`unknown voice mode "${mode}" ignored`);
    cursor = end && /\/VOICE/.test(end[0]) ? contentEnd + end[0].length : contentEnd;
  }
  rest += body.slice(cursor);
  return { voices, rest };
}

function splitSections(body: string): Partial<Record<SectionKey, string>> & { extra: string } {
  const out: Partial<Record<SectionKey, string>> & { extra: string } = { extra: '' };
  let current: SectionKey | 'extra' = 'extra';
  for (const line of body.split(/\r?\n/)) {
    const heading = /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const key = SECTIONS[heading[1]!.toLowerCase() as keyof typeof SECTIONS];
      if (key) {
        current = key;
        out[key] = out[key] ?? '';
        continue;
      }
      current = 'extra';
    }
    out[current] = `${out[current] ?? ''}${line}\n`;
  }
  return out;
}

function bullets(section: string): string[] {
  const items: string[] = [];
  for (const line of section.split(/\r?\n/)) {
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*\S)/.exec(line);
    if (item) items.push(item[1]!);
  }
  if (items.length === 0 && section.trim()) items.push(section.trim());
  return items;
}

/** `- **cereal**: supply-chain questions` or `- cereal — when …` → a rule. */
function parseDelegation(section: string): { agent_id: string; when: string }[] {
  const rules: { agent_id: string; when: string }[] = [];
  for (const item of bullets(section)) {
    const match = /^[*_`]*([a-z0-9][a-z0-9_-]*)[*_`]*\s*(?:[:—–-]\s*(.*))?$/i.exec(item);
    if (match) {
      const agentId = match[1]!.toLowerCase();
      if (!rules.some((r) => r.agent_id === agentId)) rules.push({ agent_id: agentId, when: (match[2] ?? '').trim() });
    }
  }
  return rules;
}
