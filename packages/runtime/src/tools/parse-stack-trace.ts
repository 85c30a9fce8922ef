import * as z from 'zod';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

const DEFAULT_CONTEXT_LINES = 3;

/** ParseStackTrace and ExtractErrorContext: an error body's message and frames, mapped to the project's files with the lines around each. */
export const parseStackTraceTool = defineTool({
  name: 'parse_stack_trace',
  readOnly: true,
  description:
    'Read an error response or log excerpt: its message, type and invalid fields (from a JSON error body), and the frames of any stack trace in it ' +
    '(Python, Node, Go, Java, Ruby, PHP) mapped to the project\'s files, with the lines around each frame. Frames in libraries or the runtime are named as such.',
  input: () => z.object({
    text: z.string().min(1).max(500_000).describe('The error body or trace, as received (a JSON body is read through its strings).'),
    context_lines: z.number().int().min(0).max(20).optional().describe(`Lines shown before and after each frame's line. Default ${DEFAULT_CONTEXT_LINES}.`),
    project_id: projectIdInput,
  }),
  async execute({ text, context_lines = DEFAULT_CONTEXT_LINES, project_id }, context) {
    // The library's code loads with the first call, not at cold start.
    const { explainError } = await import('./api-testing/request-library');
    return inProject(project_id, context, async (projectId) => {
      const lines = await explainError(context, projectId, text, context_lines);
      return lines.length ? lines.join('\n') : 'No stack trace and no error message, type or fields were found in the text.';
    });
  },
});
