import * as z from 'zod';
import { scannerSchema } from '@zero/agent/wire';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

/** Finding severities, lowest first. */
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
export const DEFAULT_ITEMS = 50;
const MAX_CHARS = 40_000;

/** Returns one part of a scanner's analysis document, filtered and capped. */
export const getAnalysisTool = defineTool({
  name: 'get_analysis',
  readOnly: true,
  description:
    'Read scanner results for a project: the analysis document of one scanner (e.g. "code-packages", "code-security", "devops", "technology-identification"). ' +
    'Use section, a dotted path such as "summary" or "findings.vulnerabilities", to get just that part, and min_severity to keep only findings at or above a severity. ' +
    'Without section you get the document\'s top-level keys and summary. Lists are capped at max_items.',
  input: () => z.object({
    project_id: projectIdInput,
    scanner: scannerSchema.describe('Scanner name, e.g. "code-security".'),
    section: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be a dotted path such as "findings.vulnerabilities"')
      .optional()
      .describe('Dotted path into the document, e.g. "findings.vulnerabilities". Array items can be addressed by index ("findings.0").'),
    min_severity: z.enum(SEVERITIES).optional().describe('Keep only list items whose "severity" is at least this.'),
    max_items: z.number().int().min(1).max(500).optional().describe(`Most list items to return. Default ${DEFAULT_ITEMS}.`),
  }),
  async execute({ project_id, scanner, section, min_severity, max_items = DEFAULT_ITEMS }, context) {
    return inProject(project_id, context, async (projectId) => {
      const document = await context.projects.getAnalysis(projectId, scanner);
      if (document === undefined) {
        const available = await context.projects.listAnalyses(projectId);
        return { content: `No "${scanner}" analysis for ${projectId}. Available: ${available.join(', ') || 'none'}.`, is_error: true };
      }
      let value: unknown = document;
      const walked: string[] = [];
      for (const part of section ? section.split('.') : []) {
        // Own keys only: `constructor`, `toString` or `__proto__` are not sections of a document.
        if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) {
          const keys = value !== null && typeof value === 'object' ? Object.keys(value).slice(0, 50).join(', ') : '(not an object)';
          return { content: `section: "${[...walked, part].join('.')}" is not in the ${scanner} analysis. Keys at "${walked.join('.') || '(top)'}": ${keys}.`, is_error: true };
        }
        value = (value as Record<string, unknown>)[part];
        walked.push(part);
      }
      if (!section && isObject(value)) {
        return `${scanner} analysis of ${projectId} (top level; ask for a section to see more):\n${capped(overviewOf(value))}`;
      }
      const notes: string[] = [];
      if (Array.isArray(value)) ({ items: value } = selectItems(value, min_severity, max_items, notes));
      const header = `${scanner} analysis of ${projectId}${section ? `, section ${section}` : ''}${notes.length ? ` (${notes.join('; ')})` : ''}:`;
      return `${header}\n${capped(value)}`;
    });
  },
});

/** A document's top level: lists and objects (but `summary`) as their sizes. */
export function overviewOf(document: Record<string, unknown>): Record<string, unknown> {
  const overview: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(document)) overview[key] = Array.isArray(v) ? `[${v.length} items]` : isObject(v) && key !== 'summary' ? `{${Object.keys(v).length} keys}` : v;
  return overview;
}

/** A list's items at `min_severity` or above, the first `max_items` of them; `notes` says what was left out. */
export function selectItems(list: readonly unknown[], minSeverity: (typeof SEVERITIES)[number] | undefined, maxItems: number, notes: string[]): { items: unknown[] } {
  let items = [...list];
  if (minSeverity) {
    const floor = SEVERITIES.indexOf(minSeverity);
    items = items.filter((item) => severityOf(item) >= floor);
    notes.push(`${items.length} of ${list.length} items at severity ${minSeverity} or above`);
  }
  if (items.length > maxItems) notes.push(`showing the first ${maxItems} of ${items.length}; raise max_items or narrow the section`);
  return { items: items.slice(0, maxItems) };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function severityOf(item: unknown): number {
  const raw = isObject(item) ? item.severity : undefined;
  return typeof raw === 'string' ? SEVERITIES.indexOf(raw.toLowerCase() as (typeof SEVERITIES)[number]) : -1;
}

/** JSON, cut at 40,000 characters with a notice. */
export function capped(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n[cut at ${MAX_CHARS} of ${text.length} characters; ask for a narrower section]` : text;
}
