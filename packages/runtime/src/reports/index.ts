/**
 * Reports as PDF: Markdown or an HTML subset read into blocks and laid out with pdfkit.
 * Not re-exported from the package root: it loads the PDF library, so callers import it on first use.
 */
export * from './document';
export * from './limits';
export { renderReport, type RenderOptions } from './render';
