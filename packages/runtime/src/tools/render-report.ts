import * as z from 'zod';
import { PathError } from '../projects/paths';
import { REPORT_LIMITS } from '../reports/limits';
import { inProject, projectIdInput, toolError } from './project-scope';
import { defineTool, type ToolContext, type ToolOutput } from './tool';
import { storeWritable, writablePath, type WritablePath } from './binary-writable';

/** Renders Markdown or basic HTML as a PDF into the project's `reports/` or the session's artifacts. */
export const renderReportTool = defineTool({
  name: 'render_report',
  readOnly: false,
  timeoutMs: REPORT_LIMITS.timeoutMs,
  policySubject: (input) => input.path,
  description:
    'Render a report written in Markdown (or basic HTML) as a PDF and save it. path must end in ".pdf" and start with "reports/" ' +
    '(stored with the project, e.g. "reports/dependency-audit.pdf") or "artifacts/" (stored with this conversation). ' +
    'Supported: headings, paragraphs, bold, italic, inline code, strikethrough, links, ordered, unordered and task lists (nested), ' +
    `tables, code blocks, block quotes and horizontal rules. Images are not fetched (their alt text is shown). At most ${REPORT_LIMITS.maxPages} pages. ` +
    'Returns the path, the page count and the size.',
  input: () => z.object({
    path: z.string().min(1).max(1024).describe('"reports/<name>.pdf" or "artifacts/<name>.pdf".'),
    content: z.string().min(1).max(REPORT_LIMITS.maxChars).describe('The report, as Markdown (GitHub-flavoured) or HTML.'),
    format: z.enum(['markdown', 'html']).default('markdown').describe('What content is written in.'),
    title: z.string().min(1).max(200).optional().describe("The PDF's document title (its metadata); the content's own headings are what is shown."),
    project_id: projectIdInput,
  }),
  async execute({ path, content, format, title, project_id }, context) {
    try {
      const target = writablePath(path, 'render_report');
      if (!/\.pdf$/i.test(target.path)) throw new PathError(`render_report writes PDF files: the path must end in ".pdf", not "${target.path}"`);
      if (target.area === 'artifacts') return await render(context, target, { content, format, title });
      return await inProject(project_id, context, (projectId) => render(context, target, { content, format, title }, projectId), 'editor');
    } catch (error) {
      return toolError(error);
    }
  },
});

/** Renders first, and stores only a complete PDF: a report over a limit leaves nothing behind. */
async function render(
  context: ToolContext,
  target: WritablePath,
  input: { content: string; format: 'markdown' | 'html'; title?: string },
  projectId?: string,
): Promise<ToolOutput> {
  // Loaded on first use: the PDF library and its font engine stay out of every other cold start.
  const { renderReport, ReportContentError } = await import('../reports/render');
  let pdf;
  try {
    pdf = await renderReport(input.content, { format: input.format, title: input.title, signal: context.signal });
  } catch (error) {
    if (ReportContentError.isInstance(error)) return { content: `render_report refused: ${error.message}. Nothing was written.`, is_error: true };
    throw error;
  }
  await storeWritable(context, target, pdf.bytes, 'application/pdf', projectId);
  return JSON.stringify({
    path: target.path,
    ...(projectId ? { project_id: projectId } : {}),
    pages: pdf.pages,
    bytes: pdf.bytes.byteLength,
    // Said, not hidden: the model can rewrite those parts or tell the reader.
    ...(pdf.missing.length ? { not_rendered: `${pdf.missing.join('')} (no glyph in the report's fonts: shown as empty boxes)` } : {}),
  });
}
