import { blocksFromHtml } from './from-html';
import { blocksFromMarkdown } from './from-markdown';
import { reportFonts } from './fonts';
import { REPORT_LIMITS } from './limits';
import { layoutPdf, type LaidOutPdf } from './pdf-layout';

import { ReportContentError } from './document';

export { ReportContentError };
export { REPORT_LIMITS } from './limits';


export interface RenderOptions {
  format: 'markdown' | 'html';
  title?: string;
  maxPages?: number;
  /** Epoch milliseconds; by default `timeoutMs` from now. */
  deadline?: number;
  signal?: AbortSignal;
}

/**
 * Renders Markdown or the HTML subset as a PDF, in JavaScript only (no
 * browser, so it runs on Lambda). Throws ReportContentError, naming the
 * reason, when the report is over a limit.
 */
export async function renderReport(source: string, options: RenderOptions): Promise<LaidOutPdf> {
  const deadline = options.deadline ?? Date.now() + REPORT_LIMITS.timeoutMs;
  try {
    const blocks = options.format === 'html' ? blocksFromHtml(source) : blocksFromMarkdown(source);
    const fonts = await reportFonts();
    return await layoutPdf(blocks, fonts, { title: options.title, limits: { maxPages: options.maxPages ?? REPORT_LIMITS.maxPages, deadline, signal: options.signal } });
  } catch (error) {
    // The parsers and the layout recurse once per level of nesting: thousands of levels run out of stack.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw new ReportContentError('the content nests too deeply (lists, quotes or emphasis inside one another); flatten it');
    throw error;
  }
}
