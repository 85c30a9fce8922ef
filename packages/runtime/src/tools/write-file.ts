import * as z from 'zod';
import { projectIdInput } from './project-scope';
import { defineTool } from './tool';
import { inWritableArea, writeWritable } from './writable-area';

const MAX_CHARS = 1_000_000;

/** Writes a report into the project's `reports/` or a file into the session's artifacts; nothing else is writable. */
export const writeFileTool = defineTool({
  name: 'write_file',
  readOnly: false,
  // `write_file(reports/**)`; a path the tool would refuse never reaches a rule (it is refused either way).
  policySubject: (input) => input.path,
  description:
    'Save a text file you produced. path must start with "reports/" (stored with the project, e.g. "reports/dependency-audit.md") ' +
    'or "artifacts/" (stored with this conversation, no project needed). Any other path is refused: project source files are read-only. ' +
    'An existing file at the same path is replaced.',
  input: () => z.object({
    path: z.string().min(1).max(1024).describe('"reports/<name>" or "artifacts/<name>", e.g. "reports/summary.md".'),
    content: z.string().max(MAX_CHARS).describe('The whole file, as text.'),
    project_id: projectIdInput,
  }),
  async execute({ path, content, project_id }, context) {
    return inWritableArea('write_file', path, project_id, context, async (file) => `Wrote ${await writeWritable(context, file, content)}.`);
  },
});
