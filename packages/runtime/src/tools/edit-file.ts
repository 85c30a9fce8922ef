import * as z from 'zod';
import { projectIdInput } from './project-scope';
import { defineTool } from './tool';
import { inWritableArea, readWritable, writeWritable } from './writable-area';

const MAX_CHARS = 1_000_000;

/** Replaces an exact string in a file of the writable area, as Claude Code's Edit does. */
export const editFileTool = defineTool({
  name: 'edit_file',
  readOnly: false,
  policySubject: (input) => input.path,
  description:
    'Edit a file you saved under "reports/" or "artifacts/" by exact string replacement: old_string must appear in the file exactly once ' +
    '(include surrounding lines to make it unique) unless replace_all is true. Whitespace and indentation must match. ' +
    'Project source files are read-only; write a new file with write_file.',
  input: () => z.object({
    path: z.string().min(1).max(1024).describe('"reports/<name>" or "artifacts/<name>", e.g. "reports/summary.md".'),
    old_string: z.string().min(1).max(MAX_CHARS).describe('The exact text to replace.'),
    new_string: z.string().max(MAX_CHARS).describe('The text to put in its place (must differ from old_string).'),
    replace_all: z.boolean().optional().describe('Replace every occurrence instead of exactly one. Default false.'),
    project_id: projectIdInput,
  }),
  async execute({ path, old_string, new_string, replace_all = false, project_id }, context) {
    if (old_string === new_string) return { content: 'old_string and new_string are the same; there is nothing to change.', is_error: true };
    return inWritableArea('edit_file', path, project_id, context, async (file) => {
      const current = await readWritable(context, file);
      if (current === undefined) return { content: `No file "${file.path}" to edit; create it with write_file.`, is_error: true };
      const count = current.split(old_string).length - 1;
      if (count === 0) return { content: `old_string was not found in ${file.path}; nothing was changed. Match the text exactly, whitespace included.`, is_error: true };
      if (count > 1 && !replace_all) {
        return { content: `old_string appears ${count} times in ${file.path}; nothing was changed. Include more surrounding text to make it unique, or pass replace_all: true.`, is_error: true };
      }
      const next = replace_all ? current.split(old_string).join(new_string) : current.replace(old_string, () => new_string);
      if (next.length > MAX_CHARS) return { content: `The edited file would be ${next.length} characters, over the ${MAX_CHARS}-character limit; nothing was changed.`, is_error: true };
      return `Replaced ${count} occurrence${count === 1 ? '' : 's'}; wrote ${await writeWritable(context, file, next)}.`;
    });
  },
});
