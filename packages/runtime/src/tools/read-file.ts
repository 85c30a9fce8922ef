import * as z from 'zod';
import { normalizeProjectPath } from '../projects/paths';
import { inProject, looksBinary, projectIdInput } from './project-scope';
import { defineTool } from './tool';

const MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_LINES = 2000;
const MAX_LINE_CHARS = 2000;

/** Reads one file of a project, with numbered lines. */
export const readFileTool = defineTool({
  name: 'read_file',
  readOnly: true,
  policySubject: (input) => input.path,
  description:
    'Read a file of the project, with line numbers. Paths are relative to the project root, e.g. "src/index.ts". ' +
    `Reads ${DEFAULT_LINES} lines from the start unless you give offset (first line, 1-based) and limit (number of lines); ` +
    'long lines are cut. Binary files are refused. Use glob to find paths and grep to find the lines worth reading.',
  input: () => z.object({
    path: z.string().min(1).max(1024).describe('File path relative to the project root, e.g. "package.json".'),
    offset: z.number().int().min(1).optional().describe('First line to read, 1-based. Default 1.'),
    limit: z.number().int().min(1).max(10_000).optional().describe(`Number of lines to read. Default ${DEFAULT_LINES}.`),
    project_id: projectIdInput,
  }),
  async execute({ path, offset = 1, limit = DEFAULT_LINES, project_id }, context) {
    return inProject(project_id, context, async (projectId) => {
      const checked = normalizeProjectPath(path);
      const file = await context.projects.read(projectId, 'files', checked, MAX_BYTES, context.signal);
      if (!file) return { content: `No file "${checked}" in project ${projectId}. Use glob to find the right path.`, is_error: true };
      if (looksBinary(file.body)) return { content: `"${checked}" is a binary file (${file.size} bytes); read_file shows text only.`, is_error: true };
      const text = new TextDecoder('utf-8').decode(file.body);
      const lines = text.split(/\r?\n/);
      if (file.truncated) lines.pop();
      else if (lines.at(-1) === '') lines.pop();
      if (lines.length === 0) return `"${checked}" is empty.`;
      if (offset > lines.length) return { content: `"${checked}" has ${lines.length} lines; offset ${offset} is past the end.`, is_error: true };
      const slice = lines.slice(offset - 1, offset - 1 + limit);
      const width = String(offset + slice.length - 1).length;
      const body = slice
        .map((line, i) => {
          const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} [line cut at ${MAX_LINE_CHARS} characters]` : line;
          return `${String(offset + i).padStart(width)}\t${cut}`;
        })
        .join('\n');
      const last = offset + slice.length - 1;
      const notes: string[] = [];
      if (last < lines.length) notes.push(`[showing lines ${offset}-${last} of ${file.truncated ? 'at least ' : ''}${lines.length}; pass offset ${last + 1} to read on]`);
      if (file.truncated) notes.push(`[the file is ${file.size} bytes; only its first ${MAX_BYTES} bytes can be read]`);
      return [body, ...notes].join('\n');
    });
  },
});
