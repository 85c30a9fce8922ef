import type { RE2JS } from 're2js';
import * as z from 'zod';
import { normalizeProjectFolder } from '../projects/paths';
import { inFolder, matcherFor } from './glob';
import { inProject, looksBinary, projectIdInput } from './project-scope';
import { defineTool } from './tool';

const DEFAULT_MAX = 200;
/** Files bigger than this are not searched (minified bundles, data dumps). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE_CHARS = 500;
/** Search time budget; results so far are returned with a notice when it runs out. */
const TIME_BUDGET_MS = 20_000;

/** Searches a project's files with a regular expression (RE2 syntax, linear time). */
export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search the project\'s files for a regular expression (RE2 syntax: no backreferences or lookaround; matching is linear-time). ' +
    'output_mode "files_with_matches" (default) lists matching files, "content" shows matching lines as path:line:text with optional context lines, "count" gives matches per file. ' +
    'Narrow with path (a folder or file) and glob (e.g. "*.ts"). Binary files and files over 5 MB are skipped.',
  input: z.object({
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
    const around = input.context ?? 0;
    // A linear-time engine, loaded on first use (it is large and most requests never grep).
    const { RE2JS: Engine } = await import('re2js');
    let regex: RE2JS;
    try {
      regex = Engine.compile(pattern, case_insensitive ? Engine.CASE_INSENSITIVE : 0);
    } catch (error) {
      return { content: `pattern: not a valid RE2 regular expression (${(error as Error).message}).`, is_error: true };
    }
    return inProject(project_id, context, async (projectId) => {
      const folder = normalizeProjectFolder(input.path);
      const globMatches = glob ? await matcherFor(glob) : () => true;
      const wanted = (f: { path: string; size: number }) => inFolder(f.path, folder) && f.size <= MAX_FILE_BYTES && globMatches(f.path);
      const snapshot = await context.projectFiles.materialize(projectId, wanted, context.signal);
      const candidates = snapshot.files.filter(wanted);
      const deadline = Date.now() + TIME_BUDGET_MS;
      const out: string[] = [];
      let files = 0;
      let lines = 0;
      let searched = 0;
      let full = false;
      for (const file of candidates) {
        if (context.signal.aborted || Date.now() > deadline || full) break;
        searched += 1;
        const bytes = await snapshot.read(file.path);
        if (looksBinary(bytes)) continue;
        const text = bytes.toString('utf8');
        // One linear pass over the whole file first: most files do not match at all.
        if (!regex.matcher(text).find()) continue;
        const all = text.split(/\r?\n/);
        const hits: number[] = [];
        for (let i = 0; i < all.length; i++) if (regex.matcher(all[i]!).find()) hits.push(i);
        if (hits.length === 0) continue;
        const isHit = new Set(hits);
        files += 1;
        if (output_mode === 'files_with_matches') out.push(file.path);
        else if (output_mode === 'count') out.push(`${file.path}:${hits.length}`);
        else {
          const shown = new Set<number>();
          for (const hit of hits) {
            if (lines >= max_results) break;
            for (let i = Math.max(0, hit - around); i <= Math.min(all.length - 1, hit + around); i++) {
              if (shown.has(i)) continue;
              shown.add(i);
              const line = all[i]!;
              const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
              const sep = isHit.has(i) ? ':' : '-';
              out.push(`${file.path}${sep}${i + 1}${sep}${cut}`);
            }
            lines += 1;
            if (around > 0) out.push('--');
          }
        }
        if (output_mode !== 'content' && files >= max_results) full = true;
        if (output_mode === 'content' && lines >= max_results) full = true;
      }
      const notes: string[] = [];
      if (full && searched < candidates.length) notes.push(`[stopped at max_results=${max_results} after ${searched} of ${candidates.length} files; narrow the search or raise max_results]`);
      else if (searched < candidates.length) notes.push(`[search stopped after ${searched} of ${candidates.length} files (time budget); results are partial]`);
      if (out.length === 0) return [`No matches for /${pattern}/ in ${candidates.length} files of ${projectId}.`, ...notes].join('\n');
      if (out.at(-1) === '--') out.pop();
      return [...out, ...notes].join('\n');
    });
  },
});
