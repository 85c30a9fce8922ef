/**
 * A report as the PDF layout sees it: blocks of styled text. Markdown and the
 * HTML subset are both read into this shape, so the layout knows one format.
 */

/** A piece of text in one style; `link` is set only for http(s) and mailto targets. */
export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  strike?: boolean;
  link?: string;
}

export type Align = 'left' | 'center' | 'right';

export type Block =
  | { kind: 'heading'; level: number; runs: Run[] }
  | { kind: 'paragraph'; runs: Run[] }
  | { kind: 'list'; ordered: boolean; start: number; items: ListItem[] }
  | { kind: 'table'; header: Run[][]; rows: Run[][][]; align: (Align | undefined)[] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; blocks: Block[] }
  | { kind: 'rule' };

export interface ListItem {
  /** A GFM task item: checked or not. */
  task?: { checked: boolean };
  blocks: Block[];
}

/** Columns a table may have: wider tables cannot be laid out readably on a page. */
export const MAX_TABLE_COLUMNS = 20;

/** A refusal of the report's content, with the reason the model is shown. */
export class ReportContentError extends Error {
  override readonly name = 'ReportContentError';
  static isInstance(error: unknown): error is ReportContentError {
    return error instanceof Error && error.name === 'ReportContentError';
  }
}

/** The target of a link when it may be clickable in the PDF: absolute http(s) or mailto, nothing else. */
export function linkTarget(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The runs' text with the styles dropped, e.g. for a table cell's width. */
export function plainText(runs: readonly Run[]): string {
  return runs.map((r) => r.text).join('');
}
