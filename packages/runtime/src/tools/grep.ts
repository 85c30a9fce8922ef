import * as z from 'zod';
import { normalizeProjectFolder } from '../projects/paths';
import { inFolder, matcherFor } from './glob';
import { scanInWorker } from './grep-worker';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

const DEFAULT_MAX = 200;
/** Files bigger than this are not searched (minified bundles, data dumps). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE_CHARS = 500;
/** Largest compiled pattern (re2js program size): the scan's cost per byte grows with it. */
const MAX_PROGRAM_SIZE = 500;

export interface GrepOptions {
  /** Wall time of one search, after which its scan thread is stopped and the results so far are returned as an error. */
  budgetMs?: number;
}

/** Searches a project's files with a regular expression (RE2 syntax, linear time), in a worker thread stopped at the budget. */
export function createGrepTool({ budgetMs = 20_000 }: GrepOptions = {}) {
  return defineTool({
    name: 'grep',
    readOnly: true,
    description:
      'Search the project\'s files for a regular expression (RE2 syntax: no backreferences or lookaround; matching is linear-time). ' +
      'output_mode "files_with_matches" (default) lists matching files, "content" shows matching lines as path:line:text with optional context lines, "count" gives matches per file. ' +
      `Narrow with path (a folder or file) and glob (e.g. "*.ts"). Binary files and files over 5 MB are skipped. A search stops after ${budgetMs / 1000} s; keep patterns simple (no huge repetition counts).`,
    input: () => z.object({
      pattern: z.string().min(1).max(1000).describe('Regular expression in RE2 syntax, e.g. "lodash|underscore" or "func\\\\s+main".'),
      path: z.string().max(1024).optional().describe('Folder or file to search, relative to the project root. Default: everything.'),
      glob: z.string().max(500).optional().describe('Only search files whose path matches this glob, e.g. "*.js" or "src/**/*.py".'),
      case_insensitive: z.boolean().optional().describe('Ignore case. Default false.'),
      context: z.number().int().min(0).max(10).optional().describe('Lines of context before and after each match (content mode). Default 0.'),
      output_mode: z.enum(['files_with_matches', 'content', 'count']).optional().describe('What to return. Default "files_with_matches".'),
      max_results: z.number().int().min(1).max(2000).optional().describe(`Most files (or lines, in content mode) to return. Default ${DEFAULT_MAX}.`),
      project_id: projectIdInput,
    }),
    async execute(input, context) {
      const { pattern, glob, case_insensitive, output_mode = 'files_with_matches', max_results = DEFAULT_MAX, project_id } = input;
      return inProject(project_id, context, async (projectId) => {
        const started = Date.now();
        const folder = normalizeProjectFolder(input.path);
        const globMatches = glob ? await matcherFor(glob) : () => true;
        const wanted = (f: { path: string; size: number }) => inFolder(f.path, folder) && f.size <= MAX_FILE_BYTES && globMatches(f.path);
        const snapshot = await context.projectFiles.materialize(projectId, wanted, context.signal);
        const candidates = snapshot.files.filter(wanted);
        const outcome = await scanInWorker(
          candidates.map((file) => ({ path: file.path, read: () => snapshot.read(file.path) })),
          {
            pattern,
            caseInsensitive: !!case_insensitive,
            mode: output_mode,
            context: input.context ?? 0,
            maxResults: max_results,
            maxLineChars: MAX_LINE_CHARS,
            maxProgramSize: MAX_PROGRAM_SIZE,
          },
          { budgetMs: Math.max(0, budgetMs - (Date.now() - started)), signal: context.signal },
        );
        if (outcome.status === 'refused' || outcome.status === 'failed') return { content: outcome.message, is_error: true };
        const { out, searched, total } = outcome;
        if (out.at(-1) === '--') out.pop();
        if (outcome.status === 'budget' || outcome.status === 'aborted') {
          const why = outcome.status === 'budget' ? `its ${budgetMs / 1000} s time budget` : 'a stop request';
          const cut = candidates[searched] ? ` while scanning ${candidates[searched]!.path}` : '';
          const notice = `[grep stopped at ${why}${cut}, after searching ${searched} of ${total} files; results are partial. Use a simpler pattern, or narrow path or glob.]`;
          return { content: [...out, notice].join('\n'), is_error: true };
        }
        const notes: string[] = [];
        if (outcome.status === 'full' && searched < total) notes.push(`[stopped at max_results=${max_results} after ${searched} of ${total} files; narrow the search or raise max_results]`);
        if (out.length === 0) return [`No matches for /${pattern}/ in ${total} files of ${projectId}.`, ...notes].join('\n');
        return [...out, ...notes].join('\n');
      });
    },
  });
}

export const grepTool = createGrepTool();
