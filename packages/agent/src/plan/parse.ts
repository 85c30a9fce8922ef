import { LineCounter, isNode, parseDocument } from 'yaml';
import type * as z from 'zod';
import { planSchema, type Plan } from '../wire/plan';

export type PlanFormat = 'yaml' | 'json' | 'markdown';

/** Why a plan file was refused: the field at fault (or `plan`), its line (1-based) and what is wrong. */
export interface PlanError {
  field: string;
  line?: number;
  message: string;
}

export type PlanParse = { ok: true; plan: Plan } | { ok: false; error: PlanError };

/** The format of a plan file from its name: `.yaml`/`.yml`, `.json`, `.md`/`.markdown`. */
export function planFormatOf(file: string): PlanFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (ext === 'yaml' || ext === 'yml') return 'yaml';
  if (ext === 'json') return 'json';
  if (ext === 'md' || ext === 'markdown') return 'markdown';
  return undefined;
}

/** Parses a plan written as YAML, JSON or Markdown; never throws. */
export function parsePlan(text: string, format: PlanFormat): PlanParse {
  return format === 'markdown' ? parseMarkdownPlan(text) : parseStructuredPlan(text);
}

/** YAML or JSON (JSON is read as YAML, which it is): errors point at the line of the field. */
function parseStructuredPlan(text: string): PlanParse {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) return { ok: false, error: { field: 'plan', line: lines.linePos(syntax.pos[0]).line, message: syntax.message.split('\n')[0]! } };
  const value = doc.toJS() as unknown;
  const parsed = planSchema.safeParse(value);
  if (parsed.success) return { ok: true, plan: parsed.data };
  const issue = parsed.error.issues[0]!;
  // The line of the deepest node the path reaches: the field itself, or the object that lacks it.
  let line: number | undefined;
  for (let depth = issue.path.length; depth >= 0 && line === undefined; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(issue.path.slice(0, depth) as (string | number)[], true);
    if (isNode(node) && node.range) line = lines.linePos(node.range[0]).line;
  }
  return { ok: false, error: { field: fieldOf(issue), line, message: messageOf(issue) } };
}

const SECTIONS: Record<string, 'goal' | 'context' | 'steps'> = { goal: 'goal', context: 'context', steps: 'steps', instructions: 'steps' };

/** Markdown: `## Goal`, `## Context` and `## Steps` sections; steps are the section's list items. */
function parseMarkdownPlan(text: string): PlanParse {
  const found: Partial<Record<'goal' | 'context' | 'steps', { line: number; body: string[] }>> = {};
  let current: { line: number; body: string[] } | undefined;
  const all = text.split(/\r?\n/);
  for (const [i, line] of all.entries()) {
    const heading = /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const section = SECTIONS[heading[1]!.toLowerCase()];
      if (section && found[section]) return { ok: false, error: { field: section, line: i + 1, message: `the "## ${heading[1]}" section appears twice` } };
      current = section ? (found[section] = { line: i + 1, body: [] }) : undefined;
      continue;
    }
    current?.body.push(line);
  }
  if (!found.goal) return { ok: false, error: { field: 'goal', line: 1, message: 'is required: the file has no "## Goal" section' } };
  const plan: Record<string, unknown> = { goal: found.goal.body.join('\n').trim() };
  if (found.context) plan.context = found.context.body.join('\n').trim();
  if (found.steps) {
    const items: string[] = [];
    for (const line of found.steps.body) {
      const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
      if (item) items.push(item[1]!);
      else if (line.trim() && items.length) items[items.length - 1] += ` ${line.trim()}`;
      else if (line.trim()) items.push(line.trim());
    }
    plan.steps = items;
  }
  const parsed = planSchema.safeParse(plan);
  if (parsed.success) return { ok: true, plan: parsed.data };
  const issue = parsed.error.issues[0]!;
  const section = found[issue.path[0] as 'goal' | 'context' | 'steps'];
  return { ok: false, error: { field: fieldOf(issue), line: section?.line, message: messageOf(issue) } };
}

const fieldOf = (issue: z.core.$ZodIssue) => (issue.path.length ? issue.path.join('.') : issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : 'plan');

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (a plan has goal, context, steps or instructions, agent, project)`;
  // zod leaves the input out of its issues; its message says what was received.
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return 'is required';
  return issue.message;
}
