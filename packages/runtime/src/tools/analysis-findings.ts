import * as z from 'zod';
import { capped, DEFAULT_ITEMS, isObject, overviewOf, selectItems, SEVERITIES } from './get-analysis';
import { inProject, projectIdInput } from './project-scope';
import { defineTool, type ToolContext } from './tool';

/**
 * The seed's analysis tools (Zero's plan: `get_project_summary`, `get_vulnerabilities`,
 * `get_malcontent`, `get_secrets`): fixed sections of a project's analysis documents, read as
 * `get_analysis` reads one, across every scanner. A kind of finding is the list a scanner keeps
 * under `findings.<name>` for one of the kind's names (`code-packages` and `code-security` keep
 * vulnerabilities as `findings.vulns` or `findings.vulnerabilities`).
 */
const FINDING_NAMES = {
  vulnerabilities: ['vulnerabilities', 'vulns'],
  malcontent: ['malcontent'],
  secrets: ['secrets'],
} as const;

/** The project's analysis documents, scanner by scanner (a document removed meanwhile is skipped). */
async function analysesOf(projectId: string, context: ToolContext): Promise<{ scanner: string; document: unknown }[]> {
  const scanners = await context.projects.listAnalyses(projectId);
  const documents = await Promise.all(scanners.map(async (scanner) => ({ scanner, document: await context.projects.getAnalysis(projectId, scanner) })));
  return documents.filter((d) => d.document !== undefined);
}

/** The summary of each of the project's analyses. */
export const getProjectSummaryTool = defineTool({
  name: 'get_project_summary',
  readOnly: true,
  description:
    "Summarise a project's analysis: for each scanner that analysed it, the document's summary (or its top-level keys when it has none). " +
    'Read the findings with get_vulnerabilities, get_malcontent, get_secrets or get_analysis.',
  input: () => z.object({ project_id: projectIdInput }),
  async execute({ project_id }, context) {
    return inProject(project_id, context, async (projectId) => {
      const analyses = await analysesOf(projectId, context);
      if (analyses.length === 0) return `${projectId} has no analysis yet: no scanner results were stored for it.`;
      const summaries: Record<string, unknown> = {};
      for (const { scanner, document } of analyses) {
        summaries[scanner] = isObject(document) ? (Object.hasOwn(document, 'summary') ? document.summary : overviewOf(document)) : document;
      }
      return `Analysis summary of ${projectId} (${analyses.length} scanners: ${analyses.map((a) => a.scanner).join(', ')}):\n${capped(summaries)}`;
    });
  },
});

function findingsTool(name: string, kind: keyof typeof FINDING_NAMES, what: string) {
  const names = FINDING_NAMES[kind];
  return defineTool({
    name,
    readOnly: true,
    description:
      `${what} in a project's analysis, from every scanner that reports them (findings.${names.join(' or findings.')}), each item with its scanner. ` +
      'min_severity keeps only items at or above a severity; lists are capped at max_items.',
    input: () => z.object({
      project_id: projectIdInput,
      min_severity: z.enum(SEVERITIES).optional().describe('Keep only items whose "severity" is at least this.'),
      max_items: z.number().int().min(1).max(500).optional().describe(`Most items to return. Default ${DEFAULT_ITEMS}.`),
    }),
    async execute({ project_id, min_severity, max_items = DEFAULT_ITEMS }, context) {
      return inProject(project_id, context, async (projectId) => {
        const analyses = await analysesOf(projectId, context);
        const sources: string[] = [];
        const found: unknown[] = [];
        for (const { scanner, document } of analyses) {
          const findings = isObject(document) && isObject(document.findings) ? document.findings : undefined;
          for (const key of names) {
            const list = findings && Object.hasOwn(findings, key) ? findings[key] : undefined;
            if (!Array.isArray(list)) continue;
            sources.push(`${scanner} findings.${key}`);
            for (const item of list) found.push(isObject(item) ? { ...item, scanner } : { value: item, scanner });
          }
        }
        if (sources.length === 0) {
          return `No scanner reported ${kind} for ${projectId}: none of its analyses (${analyses.map((a) => a.scanner).join(', ') || 'none'}) has findings.${names.join(' or findings.')}.`;
        }
        const notes: string[] = [];
        const { items } = selectItems(found, min_severity, max_items, notes);
        return `${kind} of ${projectId} from ${sources.join(', ')}${notes.length ? ` (${notes.join('; ')})` : ''}:\n${capped(items)}`;
      });
    },
  });
}

export const getVulnerabilitiesTool = findingsTool('get_vulnerabilities', 'vulnerabilities', 'Vulnerabilities (CVEs and advisories of dependencies and code)');
export const getMalcontentTool = findingsTool('get_malcontent', 'malcontent', 'Malware and suspicious-behaviour findings (malcontent)');
export const getSecretsTool = findingsTool('get_secrets', 'secrets', 'Secrets detected in the code (keys, tokens, passwords; as the scanner redacted them)');
